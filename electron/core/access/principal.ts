import type { AccessType } from '../../../shared/api-types.js';

/** The access a request acts with: a key's access type, or anonymous (no token, when allowed). */
export type PrincipalAccess = AccessType | 'anonymous';

/** Who is making a request: resolved from a bearer key, the studio owner, or an anonymous address. */
export interface Principal {
  /** The key id, or anon:<client address> for anonymous callers. */
  keyId: string;
  accountId: string;
  access: PrincipalAccess;
}

export const isAnonymous = (principal: Principal): boolean => principal.access === 'anonymous';

import type { AccessType } from '../../../shared/api-types.js';

/** Who is making a request: resolved from a bearer key (or, later, the studio owner / anonymous). */
export interface Principal {
  keyId: string;
  accountId: string;
  access: AccessType;
}

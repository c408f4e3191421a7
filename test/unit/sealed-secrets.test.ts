// The sealing of team mode's provider keys (secrets/sealed-secrets.ts): AES-256-GCM under a key
// derived from MGW_SECRET_KEY. A value opens only under the same MGW_SECRET_KEY, for the same
// name, and unaltered; anything else is an UnreadableSecretError that never carries the value.
import { describe, expect, it } from 'vitest';
import { UnreadableSecretError } from '../../electron/core/secret-store.js';
import { DatabaseSecretStore, seal, sealingKey, unseal } from '../../electron/core/secrets/sealed-secrets.js';
import type { Store } from '../../electron/core/store/database.js';

const key = sealingKey('the-team-secret-key');
const VALUE = 'sk-proj-abcdef0123456789';

function unreadable(run: () => unknown): UnreadableSecretError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UnreadableSecretError);
    expect((error as Error).message).not.toContain(VALUE);
    return error as UnreadableSecretError;
  }
  throw new Error('expected an UnreadableSecretError');
}

describe('seal / unseal', () => {
  it('round-trips, as v1.<iv>.<tag>.<ciphertext> in base64url, with a fresh IV each time', () => {
    const sealed = seal(key, 'provider:up', VALUE);
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain(VALUE);
    expect(unseal(key, 'provider:up', sealed)).toBe(VALUE);
    // The same MGW_SECRET_KEY on another instance derives the same key.
    expect(unseal(sealingKey('the-team-secret-key'), 'provider:up', sealed)).toBe(VALUE);
    expect(seal(key, 'provider:up', VALUE)).not.toBe(sealed);
    expect(unseal(key, 'provider:x', seal(key, 'provider:x', 'ü€ USER:päss'))).toBe('ü€ USER:päss');
  });

  it('a sealed value altered anywhere (IV, tag, ciphertext) does not open', () => {
    const sealed = seal(key, 'provider:up', VALUE);
    const parts = sealed.split('.');
    for (const index of [1, 2, 3]) {
      const bytes = Buffer.from(parts[index]!, 'base64url');
      bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0x01;
      const altered = parts.map((part, i) => (i === index ? bytes.toString('base64url') : part)).join('.');
      expect(unreadable(() => unseal(key, 'provider:up', altered)).message).toMatch(/does not decrypt under this instance's MGW_SECRET_KEY/);
    }
    // Cut short, or moved to another secret's name.
    expect(unreadable(() => unseal(key, 'provider:up', sealed.slice(0, -2))).message).toMatch(/does not decrypt|not a sealed value/);
    unreadable(() => unseal(key, 'provider:other', sealed));
  });

  it('a value sealed under another MGW_SECRET_KEY does not open, saying the instances must share one', () => {
    const sealed = seal(sealingKey('another-team-key'), 'provider:up', VALUE);
    expect(unreadable(() => unseal(key, 'provider:up', sealed)).message).toMatch(/every instance must be given the same MGW_SECRET_KEY/);
  });

  it('what is not a sealed value is said to be so', () => {
    for (const text of ['', VALUE, 'v2.a.b.c', 'v1.a.b', 'v1.!!.@@.##', `v1.${Buffer.alloc(8).toString('base64url')}.${Buffer.alloc(16).toString('base64url')}.AA`]) {
      expect(unreadable(() => unseal(key, 'provider:up', text)).message).toMatch(/not a sealed value this gateway reads/);
    }
  });
});

describe('DatabaseSecretStore', () => {
  it('has nothing before load(), and refuses the synchronous writes (team writes are transactional)', () => {
    const store = new DatabaseSecretStore({} as Store, 'the-team-secret-key');
    expect(store.get('provider:up')).toBeNull();
    expect(() => store.set()).toThrow(/setIn/);
    expect(() => store.delete()).toThrow(/deleteIn/);
    expect(store.canSeal).toBe(true);
    expect(new DatabaseSecretStore({} as Store, '').canSeal).toBe(false);
    expect(() => new DatabaseSecretStore({} as Store, 'short-key')).toThrow('MGW_SECRET_KEY is 9 characters long; it must have at least 16 (openssl rand -base64 32 makes a good one).');
    expect(new DatabaseSecretStore({} as Store, null).canSeal).toBe(false);
  });
});

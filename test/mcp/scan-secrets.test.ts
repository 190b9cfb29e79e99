import { describe, expect, it } from 'vitest';
import { scanSecrets } from '../../src/adapters/mcp/secrets.js';

const SAMPLES: Readonly<Record<string, string>> = {
  aws_access_key_id: 'AKIAIOSFODNN7EXAMPLE',
  github_token: 'ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8',
  gitlab_token: 'glpat-abcdefghij0123456789',
  slack_token: 'xoxb-1234567890-abcdefghij',
  stripe_key: 'sk_live_0123456789abcdefABCDEF',
  openai_key: 'sk-proj-abcdefghijklmnopqrstuvwxyz012345',
  google_api_key: 'AIzaSyA1234567890abcdefghijklmnopqrstuv',
  npm_token: 'npm_abcdefghijklmnopqrstuvwxyz0123456789',
  jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
  private_key: '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----',
};

describe('scanSecrets', () => {
  for (const [kind, secret] of Object.entries(SAMPLES)) {
    it(`finds and redacts a ${kind}`, () => {
      const scan = scanSecrets({ note: `before ${secret} after`, list: [secret] });

      expect(scan.kinds).toEqual([kind]);
      expect(JSON.stringify(scan.redacted)).not.toContain(secret);
      expect(scan.redacted).toEqual({ note: `before [REDACTED:${kind}] after`, list: [`[REDACTED:${kind}]`] });
    });
  }

  it('finds a credential used as a key of a mapping', () => {
    expect(scanSecrets({ [SAMPLES.github_token as string]: 1 }).kinds).toEqual(['github_token']);
  });

  it('leaves hashes, ids and ordinary text alone and returns the same value', () => {
    const value = {
      sha: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      id: '3f2a9c1e-8b7d-4e2f-9a6c-1d2e3f4a5b6c',
      text: 'skip the ask- and sk-short words',
      n: 42,
    };

    const scan = scanSecrets(value);

    expect(scan.kinds).toEqual([]);
    expect(scan.redacted).toBe(value);
  });

  it('does not change its input', () => {
    const value = { token: SAMPLES.github_token };

    scanSecrets(value);

    expect(value.token).toBe(SAMPLES.github_token);
  });
});

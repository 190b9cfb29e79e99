import { describe, expect, it } from 'vitest';
import { MAX_DECODED_BYTES } from '../../src/adapters/mcp/base64-text.js';
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

function b64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

describe('scanSecrets', () => {
  for (const [kind, secret] of Object.entries(SAMPLES)) {
    it(`finds and redacts a ${kind}`, () => {
      const scan = scanSecrets({ note: `before ${secret} after`, list: [secret] });

      expect(scan.kinds).toEqual([kind]);
      expect(JSON.stringify(scan.redacted)).not.toContain(secret);
      expect(scan.redacted).toEqual({ note: `before [REDACTED:${kind}] after`, list: [`[REDACTED:${kind}]`] });
    });
  }

  it('redacts the password of a URL and keeps the rest', () => {
    const urls = [
      ['postgres://admin:s3cret@db:5432/x', 'postgres://admin:[REDACTED:credential_url]@db:5432/x'],
      ['mysql://root:pw@localhost/shop', 'mysql://root:[REDACTED:credential_url]@localhost/shop'],
      [
        'mongodb+srv://app:p%40ss@cluster0.example.net/?w=1',
        'mongodb+srv://app:[REDACTED:credential_url]@cluster0.example.net/?w=1',
      ],
      ['redis://:hunter2@cache:6379/0', 'redis://:[REDACTED:credential_url]@cache:6379/0'],
      ['amqp://guest:guest@rabbit:5672/', 'amqp://guest:[REDACTED:credential_url]@rabbit:5672/'],
      ['https://bob:tr0ub@dor@example.com/a', 'https://bob:[REDACTED:credential_url]@example.com/a'],
    ];

    for (const [url, redacted] of urls) {
      expect(scanSecrets(`DATABASE_URL=${url} # prod`)).toEqual({
        kinds: ['credential_url'],
        redacted: `DATABASE_URL=${redacted} # prod`,
      });
    }
  });

  it('finds an AWS secret access key where it is assigned or named, not a bare 40-character string', () => {
    const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';

    expect(scanSecrets(`export AWS_SECRET_ACCESS_KEY=${secret}`).redacted).toBe(
      'export AWS_SECRET_ACCESS_KEY=[REDACTED:aws_secret_access_key]',
    );
    expect(scanSecrets(`aws_secret_access_key = ${secret}`).kinds).toEqual(['aws_secret_access_key']);
    expect(scanSecrets(`{"SecretAccessKey": "${secret}"}`).kinds).toEqual(['aws_secret_access_key']);
    expect(scanSecrets({ Credentials: { SecretAccessKey: secret } }).redacted).toEqual({
      Credentials: { SecretAccessKey: '[REDACTED:aws_secret_access_key]' },
    });
    expect(scanSecrets(`checksum ${secret}`).kinds).toEqual([]);
  });

  it('leaves URLs without a password, e-mail addresses and placeholders alone', () => {
    const text = [
      'https://bob@example.com/',
      'ssh://git@github.com:22/org/repo',
      'https://example.com:8443/a?b=c@d',
      'http://[::1]:8080/x',
      'write to bob@example.com or git@github.com:org/repo.git',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a template variable, not a password
      'postgres://app:${DB_PASSWORD}@db/x',
      'postgres://app:***@db/x',
      'postgres://app:[REDACTED:credential_url]@db/x',
    ].join('\n');

    expect(scanSecrets(text).kinds).toEqual([]);
  });

  it('scans the text inside a base64 blob and encodes the redaction back', () => {
    const resource = {
      uri: 'file:///app/.env',
      mimeType: 'text/plain',
      blob: b64(`KEY=${SAMPLES.aws_access_key_id}\n`),
    };

    const scan = scanSecrets({ contents: [resource] });

    expect(scan.kinds).toEqual(['aws_access_key_id']);
    const blob = (scan.redacted.contents[0] as { blob: string }).blob;
    expect(Buffer.from(blob, 'base64').toString('utf8')).toBe('KEY=[REDACTED:aws_access_key_id]\n');
  });

  it('scans the data of an image block, and leaves binary or oversized data as it is', () => {
    const svg = { type: 'image', mimeType: 'image/svg+xml', data: b64(`<svg><!-- ${SAMPLES.github_token} --></svg>`) };
    const png = {
      type: 'image',
      mimeType: 'image/png',
      data: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 255]).toString('base64'),
    };
    const large = { uri: 'file:///big.txt', blob: b64(`${'a'.repeat(MAX_DECODED_BYTES)} ${SAMPLES.github_token}`) };

    expect(scanSecrets(svg).kinds).toEqual(['github_token']);
    expect(scanSecrets(png).redacted).toBe(png);
    expect(scanSecrets(large).redacted).toBe(large);
  });

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

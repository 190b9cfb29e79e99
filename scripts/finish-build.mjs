import { chmodSync, readFileSync } from 'node:fs';

// tsc does not keep the executable bit: set it on the CLI entry so `npx hyphae` runs it directly.
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
chmodSync(new URL(`../${pkg.bin.hyphae}`, import.meta.url), 0o755);

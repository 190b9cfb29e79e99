// Every target of the package's `exports` map must exist after the build, and every subpath
// must import without loading a peer library it does not need.
import { existsSync, readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const missing = [];
for (const [subpath, target] of Object.entries(pkg.exports)) {
  const files = typeof target === 'string' ? [target] : Object.values(target);
  for (const file of files) {
    if (!existsSync(new URL(`../${file}`, import.meta.url))) missing.push(`${subpath} -> ${file}`);
  }
}
if (!existsSync(new URL(`../${pkg.bin.hyphae}`, import.meta.url))) missing.push(`bin -> ${pkg.bin.hyphae}`);
if (missing.length > 0) {
  console.error(`Missing build outputs:\n  ${missing.join('\n  ')}`);
  process.exit(1);
}
for (const subpath of Object.keys(pkg.exports)) {
  if (subpath === './package.json') continue;
  await import(new URL(`../${pkg.exports[subpath].default}`, import.meta.url).href);
}
console.log(`exports ok: ${Object.keys(pkg.exports).length} subpaths`);

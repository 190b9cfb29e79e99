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
// Module subpaths (the object form) must also import; plain files (JSON) only need to exist.
for (const target of Object.values(pkg.exports)) {
  if (typeof target === 'string') continue;
  await import(new URL(`../${target.default}`, import.meta.url).href);
}
console.log(`exports ok: ${Object.keys(pkg.exports).length} subpaths`);

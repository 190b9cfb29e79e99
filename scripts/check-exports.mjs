// Every target of the package's `exports` map must exist after the build, every subpath must
// import without loading a peer library it does not need, and every built entry must be in the map
// (an entry is `dist/index.js`, a folder's `index.js`, or a driver's or adapter's `<name>.js`
// beside its folder `<name>/` in dist/storage or dist/adapters): no entry is built that users can
// reach only by a deep path.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const missing = [];
for (const [subpath, target] of Object.entries(pkg.exports)) {
  const files = typeof target === 'string' ? [target] : Object.values(target);
  for (const file of files) {
    if (!existsSync(new URL(`../${file}`, import.meta.url))) missing.push(`${subpath} -> ${file}`);
  }
}
if (!existsSync(new URL(`../${pkg.bin.hyphae}`, import.meta.url))) missing.push(`bin -> ${pkg.bin.hyphae}`);
const dist = new URL('../dist/', import.meta.url);
const mapped = new Set();
for (const target of Object.values(pkg.exports)) {
  if (typeof target !== 'string') mapped.add(target.default.replace(/^\.\//u, ''));
}
const entries = [];
if (existsSync(dist)) {
  if (existsSync(new URL('index.js', dist))) entries.push('dist/index.js');
  for (const dir of readdirSync(dist)) {
    if (!statSync(new URL(dir, dist)).isDirectory()) continue;
    const folder = new URL(`${dir}/`, dist);
    if (existsSync(new URL('index.js', folder))) entries.push(`dist/${dir}/index.js`);
    if (dir !== 'storage' && dir !== 'adapters') continue;
    for (const name of readdirSync(folder)) {
      const stem = name.replace(/\.js$/u, '');
      if (name.endsWith('.js') && existsSync(new URL(`${stem}/`, folder))) entries.push(`dist/${dir}/${name}`);
    }
  }
}
const unmapped = entries.filter((entry) => !mapped.has(entry) && entry !== pkg.bin.hyphae.replace(/^\.\//u, ''));
if (unmapped.length > 0) {
  console.error(`Built entries missing from package.json exports:\n  ${unmapped.join('\n  ')}`);
  process.exit(1);
}
if (missing.length > 0) {
  console.error(`Missing build outputs:\n  ${missing.join('\n  ')}`);
  process.exit(1);
}
// Module subpaths (the object form) must also import; plain files (JSON) only need to exist.
for (const target of Object.values(pkg.exports)) {
  if (typeof target === 'string') continue;
  await import(new URL(`../${target.default}`, import.meta.url).href);
}
console.log(`exports ok: ${Object.keys(pkg.exports).length} subpaths, ${entries.length} built entries all mapped`);

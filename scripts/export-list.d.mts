/** The module entries of package.json `exports`: `[subpath, source file under src/]`. */
export function packageEntries(root?: string): [string, string][];
/** The file name of an entry's checked-in list: `.` → `root.txt`, `./sqlite` → `sqlite.txt`. */
export function listFileOf(subpath: string): string;
/** The exports of the module at `file` (absolute): name → `value` | `type`. */
export function exportsOf(file: string): Map<string, 'value' | 'type'>;
/** The checked-in form of an entry's list: `value name` / `type name` lines, sorted by name. */
export function exportList(source: string, root?: string): string;

// Builds the dashboard (web/src) into dist/web: one content-hashed script and stylesheet under
// assets/, each also precompressed as .br and .gz, and index.html naming them. Nothing is loaded
// from outside at run time: no CDN, no web fonts.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.join(here, '..', 'dist', 'web');
rmSync(out, { recursive: true, force: true });
mkdirSync(path.join(out, 'assets'), { recursive: true });

const result = await build({
  entryPoints: { app: path.join(here, 'src', 'main.tsx') },
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2022'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  entryNames: '[name]-[hash]',
  outdir: path.join(out, 'assets'),
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});

const names = {};
for (const file of Object.keys(result.metafile.outputs)) {
  const name = path.basename(file);
  names[path.extname(name)] = name;
  const bytes = readFileSync(file);
  writeFileSync(
    `${file}.br`,
    brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
  );
  writeFileSync(`${file}.gz`, gzipSync(bytes, { level: 9 }));
}
const html = readFileSync(path.join(here, 'index.html'), 'utf8')
  .replace('%CSS%', names['.css'])
  .replace('%JS%', names['.js']);
writeFileSync(path.join(out, 'index.html'), html);

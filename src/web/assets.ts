/**
 * Serves the built dashboard (dist/web: index.html and content-hashed files under assets/) from
 * memory, read once at boot. Assets are immutable and sent precompressed (brotli or gzip, as the
 * client accepts); every other GET under the dashboard's path that no API route answers is the
 * single page, with a strict Content-Security-Policy: nothing but this origin's own scripts,
 * styles, images and requests, never framed. It never answers under the API's paths.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context } from 'koa';

export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-src 'self'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': DASHBOARD_CSP,
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=()',
};

const API_PREFIXES = ['/v1/', '/oauth/', '/.well-known/'];

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
};

interface Asset {
  readonly type: string;
  readonly identity: Buffer;
  readonly br?: Buffer;
  readonly gzip?: Buffer;
}

export interface DashboardAssets {
  /** Answers a GET/HEAD the API did not; false when the request is not the dashboard's. */
  serve(ctx: Context): boolean;
}

export function defaultAssetsDir(): string {
  // dist/src/web/assets.js → dist/web
  return fileURLToPath(new URL('../../web/', import.meta.url));
}

function readAssets(dir: string): Map<string, Asset> {
  const files = new Map<string, Asset>();
  const assetsDir = path.join(dir, 'assets');
  if (!existsSync(assetsDir)) return files;
  for (const name of readdirSync(assetsDir)) {
    if (name.endsWith('.br') || name.endsWith('.gz')) continue;
    const file = path.join(assetsDir, name);
    const optional = (suffix: string) =>
      existsSync(file + suffix) ? { [suffix === '.br' ? 'br' : 'gzip']: readFileSync(file + suffix) } : {};
    files.set(name, {
      type: TYPES[path.extname(name)] ?? 'application/octet-stream',
      identity: readFileSync(file),
      ...optional('.br'),
      ...optional('.gz'),
    });
  }
  return files;
}

export function loadDashboardAssets(dir: string, basePath: string): DashboardAssets {
  const indexFile = path.join(dir, 'index.html');
  const index = existsSync(indexFile)
    ? readFileSync(indexFile, 'utf8').replace('<base href="/">', `<base href="${basePath}">`)
    : undefined;
  const files = readAssets(dir);
  const assetPrefix = `${basePath}assets/`;

  const send = (ctx: Context, asset: Asset) => {
    const accepts = ctx.acceptsEncodings('br', 'gzip', 'identity');
    const [encoding, body] =
      accepts === 'br' && asset.br
        ? ['br', asset.br]
        : accepts === 'gzip' && asset.gzip
          ? ['gzip', asset.gzip]
          : [undefined, asset.identity];
    ctx.status = 200;
    ctx.type = asset.type;
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.set('Vary', 'Accept-Encoding');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cross-Origin-Resource-Policy', 'same-origin');
    if (encoding) ctx.set('Content-Encoding', encoding);
    ctx.body = body;
  };

  return {
    serve(ctx) {
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return false;
      const url = ctx.path;
      if (!url.startsWith(basePath) && `${url}/` !== basePath) return false;
      if (API_PREFIXES.some((prefix) => url.startsWith(prefix))) return false;
      if (url.startsWith(assetPrefix)) {
        const asset = files.get(url.slice(assetPrefix.length));
        if (!asset) return false;
        send(ctx, asset);
        return true;
      }
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) ctx.set(name, value);
      ctx.set('Cache-Control', 'no-cache');
      ctx.type = 'text/html; charset=utf-8';
      if (index === undefined) {
        ctx.status = 503;
        ctx.body =
          '<!doctype html><title>Posthorn</title><p>The dashboard is not built: run scripts/setup, then restart Posthorn.';
        return true;
      }
      ctx.status = 200;
      ctx.body = index;
      return true;
    },
  };
}

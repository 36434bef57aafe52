import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { publicRoute, type RouteDef } from '../http/route.js';
import { projectDir } from '../util/projectDir.js';

// The box-office page (README, "Box office"): static files from src/boxOffice/, served as
// they are (plain browser JavaScript, no build step), read once. The page itself calls the
// API with the key typed into it; nothing here authenticates.

const FILES = {
  '/box-office': ['index.html', 'text/html; charset=utf-8'],
  '/box-office/app.js': ['app.js', 'text/javascript; charset=utf-8'],
  '/box-office/style.css': ['style.css', 'text/css; charset=utf-8'],
} as const;

export function boxOfficeRoutes(): RouteDef[] {
  return Object.entries(FILES).map(([path, [file, contentType]]) => {
    let text: string | undefined;
    return publicRoute({
      method: 'GET',
      path,
      summary: `The box-office page: ${file}`,
      answers: { 200: file },
      handler: () => ({ status: 200, body: (text ??= readFileSync(join(projectDir(), 'src', 'boxOffice', file), 'utf8')), contentType, headers: { 'Cache-Control': 'no-cache' } }),
    });
  });
}

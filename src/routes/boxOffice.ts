import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { publicRoute, type RouteDef } from '../http/route.js';
import { projectDir } from '../util/projectDir.js';

// The box-office page (README, "Box office"): static files from src/boxOffice/, served as
// they are (plain browser JavaScript, no build step of its own), read once, and the built
// decoder of the status stream's compact format (dist/src/domain/compactFrames.js, a module
// with no imports), which the page imports. The page itself calls the API with the key typed
// into it; nothing here authenticates.

const FILES = {
  '/box-office': [['src', 'boxOffice', 'index.html'], 'text/html; charset=utf-8'],
  '/box-office/app.js': [['src', 'boxOffice', 'app.js'], 'text/javascript; charset=utf-8'],
  '/box-office/style.css': [['src', 'boxOffice', 'style.css'], 'text/css; charset=utf-8'],
  '/box-office/compactFrames.js': [['dist', 'src', 'domain', 'compactFrames.js'], 'text/javascript; charset=utf-8'],
} as const;

export function boxOfficeRoutes(): RouteDef[] {
  return Object.entries(FILES).map(([path, [file, contentType]]) => {
    let text: string | undefined;
    const name = file[file.length - 1]!;
    return publicRoute({
      method: 'GET',
      path,
      summary: `The box-office page: ${name}`,
      answers: { 200: name },
      handler: () => ({ status: 200, body: (text ??= readFileSync(join(projectDir(), ...file), 'utf8')), contentType, headers: { 'Cache-Control': 'no-cache' } }),
    });
  });
}

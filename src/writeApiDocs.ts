import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_DOC_FILE, currentApiReference } from './apiDocs.js';
import { projectDir } from './util/projectDir.js';

// `npm run docs:api`: writes docs/api.md from the route table and src/routes/api.md.

try {
  writeFileSync(join(projectDir(), API_DOC_FILE), currentApiReference());
  console.log(`wrote ${API_DOC_FILE}`);
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}

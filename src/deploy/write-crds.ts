// `npm run deploy:crds`: writes deploy/crds/*.yaml from core/classes/schemas.ts (src/deploy/crds.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CRD_KINDS, crdFileText } from './crds.js';

const directory = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'deploy', 'crds');
mkdirSync(directory, { recursive: true });
for (const kind of CRD_KINDS) {
  const path = join(directory, `${kind.plural}.yaml`);
  writeFileSync(path, crdFileText(kind));
  process.stdout.write(`wrote ${path}\n`);
}

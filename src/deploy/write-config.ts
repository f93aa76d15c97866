// `npm run deploy:config`: writes deploy/config.yaml from examples/ (src/deploy/config-maps.ts).
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configFileText } from './config-maps.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const path = join(root, 'deploy', 'config.yaml');
writeFileSync(path, configFileText(root));
process.stdout.write(`wrote ${path}\n`);

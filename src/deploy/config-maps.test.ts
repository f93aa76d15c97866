import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { REPO_ROOT } from '../repo-root.js';
import { runCli } from '../testing/run-cli.js';
import { CONFIG_MAPS, NAMESPACE, SERVICE_ACCOUNT, configFileText } from './config-maps.js';

const text = readFileSync(join(REPO_ROOT, 'deploy', 'config.yaml'), 'utf8');
const objects = parseAllDocuments(text).map((d) => d.toJS() as { kind: string; metadata: { name: string; namespace?: string }; data?: Record<string, string> });
const scratch = mkdtempSync(join(tmpdir(), 'lockstep-config-maps-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('deploy/config.yaml', () => {
  it('is generated from the current examples (npm run deploy:config)', () => {
    expect(text).toBe(configFileText(REPO_ROOT));
  });

  it("defines the namespace, service account and ConfigMaps the arbiter's Deployment names", () => {
    const deployment = readFileSync(join(REPO_ROOT, 'deploy', 'arbiter-deployment.yaml'), 'utf8');
    expect(objects.map((o) => `${o.kind} ${o.metadata.name}`)).toEqual(['Namespace lockstep', `ServiceAccount ${SERVICE_ACCOUNT}`, ...CONFIG_MAPS.map(([name]) => `ConfigMap ${name}`)]);
    expect(deployment).toContain(`namespace: ${NAMESPACE}`);
    expect(deployment).toContain(`serviceAccountName: ${SERVICE_ACCOUNT}`);
    for (const [name] of CONFIG_MAPS) expect(deployment).toContain(`name: ${name}`);
  });

  it('holds documents lockstep class check accepts, as serve will read them', async () => {
    const files = objects.filter((o) => o.kind === 'ConfigMap').flatMap((o) => Object.entries(o.data ?? {}).map(([name, body]) => {
      const path = join(scratch, `${o.metadata.name}-${name}`);
      writeFileSync(path, body);
      return path;
    }));
    expect(files.length).toBeGreaterThan(2);
    const check = await runCli('class', 'check', ...files);
    expect(check.code, check.out.join('\n')).toBe(0);
  });
});

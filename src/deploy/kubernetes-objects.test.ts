import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kubernetesObjectsIn, kubernetesObjectsUnder, schemaProblem } from './kubernetes-objects.js';

const DEPLOY = join(import.meta.dirname, '..', '..', 'deploy');
const objects = kubernetesObjectsUnder(DEPLOY);

describe('deploy/: every Kubernetes object passes its kind\'s schema', () => {
  it('finds the arbiter, the CRDs and the explorer Jobs among them', () => {
    const kinds = objects.map((o) => `${o.kind} ${String((o.value['metadata'] as { name?: string }).name)}`);
    expect(kinds).toEqual(expect.arrayContaining([
      'Deployment lockstep-arbiter',
      'CustomResourceDefinition lockclasses.lockstep.dev',
      'Job lockstep-explore',
      'Job lockstep-explore-merge',
      'PersistentVolumeClaim lockstep-explore-results',
    ]));
  });

  it.each(objects.map((o) => [o.where, o]))('%s', (_where, object) => {
    expect(schemaProblem(object)).toBeUndefined();
  });

  it('negative control: a port given as text, a Job without its template, and an unknown kind are refused', () => {
    const broken = kubernetesObjectsIn([
      'apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {ports: [{port: "grpc"}]}',
      'apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {completions: 2}',
      'apiVersion: example.org/v1\nkind: Widget\nmetadata: {name: w}',
    ].join('\n---\n'), 'broken.yaml');
    const problems = broken.map(schemaProblem);
    expect(problems[0]).toMatch(/port must be integer/);
    expect(problems[1]).toMatch(/template/);
    expect(problems[2]).toMatch(/no schema for example.org\/v1 Widget/);
  });
});

describe('deploy/explore-job.yaml: an Indexed Job whose pod index is the shard', () => {
  const job = objects.find((o) => o.kind === 'Job' && o.where.startsWith('explore-job.yaml'))?.value as {
    spec: { completionMode: string; completions: number; parallelism: number; template: { spec: { containers: Array<{ args: string[]; env: Array<{ name: string; valueFrom: { fieldRef: { fieldPath: string } } }> }> } } };
  };
  const container = job.spec.template.spec.containers[0]!;
  const flag = (name: string) => container.args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);

  it('runs one shard per completion index, every shard of the count, and writes the summaries merge reads', () => {
    expect(job.spec.completionMode).toBe('Indexed');
    expect(container.args[0]).toBe('explore');
    const [index, count] = (flag('shard') ?? '').split('/');
    expect(Number(count)).toBe(job.spec.completions);
    expect(job.spec.parallelism).toBe(job.spec.completions);
    const indexVariable = container.env.find((e) => index === `$(${e.name})`);
    expect(indexVariable?.valueFrom.fieldRef.fieldPath).toBe("metadata.annotations['batch.kubernetes.io/job-completion-index']");
    expect(flag('summary')).toBe(`/results/shard-${index}.json`);
    expect(container.args).toContain('--keep-going');
    const merge = objects.find((o) => o.where.startsWith('explore-merge-job.yaml'))?.value as { spec: { template: { spec: { containers: Array<{ args: string[] }> } } } };
    expect(merge.spec.template.spec.containers[0]?.args).toEqual(['explore', 'merge', '/results']);
  });
});

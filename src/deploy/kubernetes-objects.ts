// Every Kubernetes object in deploy/ checked offline against the API server's own OpenAPI schemas (the
// `kubernetes-models` package generates one validator per kind from them): a wrong type, a missing required
// field or a bad enum fails here, not at `kubectl apply`. A document of a kind with no validator listed
// below is refused too, so a new kind cannot slip past unchecked. Unknown fields are not refused: the
// generated schemas allow them, as the API server does without strict field validation.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { CustomResourceDefinition } from 'kubernetes-models/apiextensions.k8s.io/v1/CustomResourceDefinition';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ClusterRole } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole';
import { RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';

interface Validatable {
  validate(): void;
}
type ModelClass = new (data: never) => Validatable;

/** `apiVersion kind` -> its generated model. */
const MODELS: ReadonlyMap<string, ModelClass> = new Map<string, ModelClass>([
  ['apiextensions.k8s.io/v1 CustomResourceDefinition', CustomResourceDefinition as unknown as ModelClass],
  ['apps/v1 Deployment', Deployment as unknown as ModelClass],
  ['batch/v1 Job', Job as unknown as ModelClass],
  ['policy/v1 PodDisruptionBudget', PodDisruptionBudget as unknown as ModelClass],
  ['rbac.authorization.k8s.io/v1 ClusterRole', ClusterRole as unknown as ModelClass],
  ['rbac.authorization.k8s.io/v1 RoleBinding', RoleBinding as unknown as ModelClass],
  ['v1 ConfigMap', ConfigMap as unknown as ModelClass],
  ['v1 Namespace', Namespace as unknown as ModelClass],
  ['v1 PersistentVolumeClaim', PersistentVolumeClaim as unknown as ModelClass],
  ['v1 Service', Service as unknown as ModelClass],
  ['v1 ServiceAccount', ServiceAccount as unknown as ModelClass],
]);

export interface KubernetesObject {
  /** `deploy/file.yaml#2` (the document's position in its file, from 1). */
  readonly where: string;
  readonly apiVersion: string;
  readonly kind: string;
  readonly value: Record<string, unknown>;
}

/** The documents of every YAML file under `dir` that are Kubernetes objects (they have apiVersion and kind). */
export function kubernetesObjectsUnder(dir: string, root = dir): KubernetesObject[] {
  return readdirSync(dir).sort().flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return kubernetesObjectsUnder(path, root);
    if (!/\.ya?ml$/.test(name)) return [];
    return kubernetesObjectsIn(readFileSync(path, 'utf8'), relative(root, path));
  });
}

export function kubernetesObjectsIn(text: string, file: string): KubernetesObject[] {
  return parseAllDocuments(text).flatMap((document, i) => {
    const value = document.toJS() as unknown;
    if (typeof value !== 'object' || value === null) return [];
    const { apiVersion, kind } = value as { apiVersion?: unknown; kind?: unknown };
    if (typeof apiVersion !== 'string' || typeof kind !== 'string') return [];
    return [{ where: `${file}#${i + 1}`, apiVersion, kind, value: value as Record<string, unknown> }];
  });
}

/** What is wrong with `object` by its kind's schema, or undefined when it is valid. */
export function schemaProblem(object: KubernetesObject): string | undefined {
  const Model = MODELS.get(`${object.apiVersion} ${object.kind}`);
  if (Model === undefined) return `${object.where}: no schema for ${object.apiVersion} ${object.kind}; add its model to src/deploy/kubernetes-objects.ts`;
  try {
    new Model(object.value as never).validate();
    return undefined;
  } catch (error) {
    return `${object.where} (${object.kind} ${String((object.value['metadata'] as { name?: unknown } | undefined)?.name)}): ${error instanceof Error ? error.message : String(error)}`;
  }
}

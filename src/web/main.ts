// The web workbench (issue 7): the scenario runner, the run timeline, TTL sizing and quorum pricing,
// with the simulator in a Web Worker. Wires the views together and reads the page's parameters:
// #runner|#timeline|#ttl|#quorum opens a view; ?run=<url> loads an artifact (views/run-link.ts); ?scenario= and ?variant=
// preselect the runner's form.
import { el } from './dom.js';
import { JobStatus } from './job-status.js';
import { acceptDroppedFiles } from './open-artifact.js';
import { Tabs } from './tabs.js';
import { QuorumView } from './views/quorum-view.js';
import { openRunLink } from './views/run-link.js';
import { RunnerView } from './views/runner-view.js';
import { TimelineView } from './views/timeline-view.js';
import { TtlView } from './views/ttl-view.js';
import { WorkbenchClient } from './workbench-client.js';

async function start(root: HTMLElement): Promise<void> {
  const client = new WorkbenchClient(() => new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: 'lockstep-simulator' }));
  const status = new JobStatus(client);
  const [scenarios, presets] = await client.run(async (api) => Promise.all([api.listScenarios(), api.topologyPresets()]), () => undefined);
  const panels = { runner: el('section', {}), timeline: el('section', {}), ttl: el('section', {}), quorum: el('section', {}) };
  const timeline = new TimelineView(status);
  const tabs = new Tabs([
    { id: 'runner', label: 'Scenario runner', panel: panels.runner },
    { id: 'timeline', label: 'Run timeline', panel: panels.timeline, onShow: () => timeline.draw() },
    { id: 'ttl', label: 'TTL sizing', panel: panels.ttl },
    { id: 'quorum', label: 'Quorum pricing', panel: panels.quorum },
  ]);
  const runner = new RunnerView(status, scenarios, (shown) => timeline.setRun(shown, tabs.selected === 'timeline'), () => tabs.show('timeline', true));
  panels.runner.append(runner.element);
  panels.timeline.append(timeline.element);
  panels.ttl.append(new TtlView(status).element);
  panels.quorum.append(new QuorumView(status, presets).element);
  const header = el('header', { class: 'top' }, el('p', { class: 'brand' }, 'lockstep workbench'), tabs.element);
  root.replaceChildren(header, status.element, el('main', {}, ...Object.values(panels)));
  const params = new URLSearchParams(location.search);
  const scenario = params.get('scenario');
  if (scenario !== null) runner.select(scenario, params.get('variant') ?? undefined);
  const requested = location.hash.slice(1);
  tabs.show(['runner', 'timeline', 'ttl', 'quorum'].includes(requested) ? requested : 'runner');
  acceptDroppedFiles(document.body, (file) => {
    tabs.show('runner');
    void runner.openFile(file);
  });
  const runLink = params.get('run');
  if (runLink !== null) {
    tabs.show('runner');
    await openRunLink(runLink, runner, status, () => tabs.show('timeline'));
  }
  document.body.dataset['ready'] = 'true';
}

const root = document.getElementById('app');
if (root !== null) {
  start(root).catch((error: unknown) => {
    root.replaceChildren(el('p', { role: 'alert', class: 'error' }, `The workbench could not start: ${error instanceof Error ? error.message : String(error)}`));
  });
}

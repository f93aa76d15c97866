// View 1, the scenario runner (issue 7): pick a scenario, a variant (its expectation and description
// shown), a seed and the parameters, which are the variant's fault schedule (shown, editable, checked:
// schedule-editor.ts); run it in the worker; see the checks; save the artifact; load one (file input, a
// file dropped on the page, ?run=<url>); replay it. Whatever is shown also goes to the timeline.
// A loaded artifact is replayed before its checks are shown (issue 18): what the page shows is the
// replay, compared with what the artifact records; if the replay fails, the artifact is marked NOT
// VERIFIED. The replay command is built from checked fields (replay-command.ts).
import { keyCharacterProblem, showKeyText } from '../../../core/key-characters.js';
import { type ArtifactJson, artifactFileName, artifactText, parseArtifactText } from '../artifact-file.js';
import { download, el, field } from '../dom.js';
import type { JobStatus } from '../job-status.js';
import type { ScenarioInfo } from '../workbench-api.js';
import { replayNote } from '../replay-compare.js';
import { buildReplayCommand, type CommandBasis } from '../replay-command.js';
import { runResult, type ShownRun } from './run-result.js';
import { ScheduleEditor } from './schedule-editor.js';

export class RunnerView {
  readonly element: HTMLElement;
  private readonly scenario = el('select', { id: 'scenario', name: 'scenario' });
  private readonly variant = el('select', { id: 'variant', name: 'variant' });
  private readonly seed = el('input', { id: 'seed', name: 'seed', type: 'text', value: '1', required: true, autocomplete: 'off', spellcheck: 'false' });
  private readonly scenarioText = el('p', { class: 'hint', id: 'scenario-description' });
  private readonly variantText = el('p', { class: 'hint', id: 'variant-description' });
  private readonly runButton = el('button', { type: 'submit', class: 'primary' }, 'Run');
  private readonly saveButton = el('button', { type: 'button', disabled: true }, 'Save artifact');
  private readonly replayButton = el('button', { type: 'button', disabled: true }, 'Replay');
  private readonly timelineButton = el('button', { type: 'button', disabled: true }, 'Open in timeline');
  private readonly fileInput = el('input', { id: 'artifact-file', type: 'file', accept: '.json,application/json' });
  private readonly result = el('div', { id: 'run-result', 'aria-live': 'polite' });
  private readonly schedule: ScheduleEditor;
  private shown: ShownRun | undefined;

  constructor(
    private readonly status: JobStatus,
    private readonly scenarios: readonly ScenarioInfo[],
    private readonly onShow: (shown: ShownRun) => void,
    openTimeline: () => void,
  ) {
    for (const s of scenarios) this.scenario.append(el('option', { value: s.name }, s.name));
    this.scenario.addEventListener('change', () => this.fillVariants());
    this.variant.addEventListener('change', () => this.describeVariant());
    this.seed.addEventListener('change', () => this.loadSchedule());
    this.schedule = new ScheduleEditor(status);
    const form = el(
      'form',
      { class: 'run-form', 'aria-label': 'Run a scenario' },
      field('Scenario', this.scenario),
      this.scenarioText,
      field('Variant', this.variant),
      this.variantText,
      field('Seed', this.seed, 'every random choice of the run derives from it'),
      this.schedule.element,
      el('div', { class: 'actions' }, this.runButton),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.run();
    });
    this.saveButton.addEventListener('click', () => this.save());
    this.replayButton.addEventListener('click', () => void this.replay());
    this.timelineButton.addEventListener('click', openTimeline);
    this.fileInput.addEventListener('change', () => void this.loadChosenFile());
    status.onBusyChange((busy) => {
      for (const b of [this.runButton, this.replayButton]) b.disabled = busy || (b === this.replayButton && this.shown === undefined);
    });
    const artifacts = el(
      'section',
      { class: 'artifact-actions', 'aria-label': 'Run artifacts' },
      field('Load an artifact', this.fileInput, 'or drop a run artifact (JSON) anywhere on the page, or open the page with ?run=<url>'),
      el('div', { class: 'actions' }, this.saveButton, this.replayButton, this.timelineButton),
    );
    this.element = el('div', { class: 'runner' }, el('h1', {}, 'Scenario runner'), el('div', { class: 'runner-controls' }, form, artifacts), this.result);
    this.fillVariants();
  }

  private fillVariants(): void {
    const s = this.scenarios.find((x) => x.name === this.scenario.value);
    this.scenarioText.textContent = s?.description ?? '';
    this.variant.replaceChildren(...(s?.variants ?? []).map((v) => el('option', { value: v.name }, `${v.name} (expect ${v.expect})`)));
    this.describeVariant();
  }

  private describeVariant(): void {
    const v = this.scenarios.find((x) => x.name === this.scenario.value)?.variants.find((x) => x.name === this.variant.value);
    this.variantText.replaceChildren(...(v === undefined ? [] : [el('strong', {}, `expect ${v.expect}: `), v.description]));
    this.loadSchedule();
  }

  private loadSchedule(): void {
    if (this.seed.value.trim() === '' || this.variant.value === '') return;
    void this.schedule.load({ scenario: this.scenario.value, variant: this.variant.value, seed: this.seed.value });
  }

  /** Selects a scenario and variant in the form (the page's ?scenario= and ?variant= parameters); a name it does not know is shown as an error, not passed over. */
  select(scenario: string, variant?: string): void {
    if (!this.scenarios.some((s) => s.name === scenario)) {
      this.status.showError(`?scenario=${scenario}: no scenario ${JSON.stringify(scenario)}; the scenarios: ${this.scenarios.map((s) => s.name).join(', ')}. The form shows ${this.scenario.value} instead.`);
      return;
    }
    this.scenario.value = scenario;
    this.fillVariants();
    if (variant !== undefined && ![...this.variant.options].some((o) => o.value === variant)) {
      this.status.showError(`?variant=${variant}: scenario ${scenario} has no variant ${JSON.stringify(variant)}; its variants: ${[...this.variant.options].map((o) => o.value).join(', ')}. The form shows ${this.variant.value} instead.`);
    } else if (variant !== undefined) this.variant.value = variant;
    this.describeVariant();
  }

  private async run(): Promise<void> {
    const label = `Run ${this.scenario.value} / ${this.variant.value}, seed ${JSON.stringify(this.seed.value)}`;
    let faults: ReturnType<ScheduleEditor['scheduleToRun']>;
    try {
      faults = this.schedule.scheduleToRun();
    } catch (error) {
      this.status.showError(`${label}: ${(error as Error).message}`);
      this.schedule.focus();
      return;
    }
    const request = { scenario: this.scenario.value, variant: this.variant.value, seed: this.seed.value, ...(faults === undefined ? {} : { faults }) };
    const artifact = await this.status.run(label, (api, onProgress) => api.runScenario(request, onProgress));
    if (artifact === undefined) return;
    // The variant's own schedule reruns with `lockstep run`; an edited one lives in the file Save writes.
    const basis: CommandBasis = faults === undefined ? { kind: 'variant-schedule' } : { kind: 'file' };
    this.show({ artifact, source: faults === undefined ? 'a run in this page' : 'a run in this page with an edited fault schedule', notes: [], verification: { kind: 'computed' }, basis });
  }

  private async replay(): Promise<void> {
    const shown = this.shown;
    if (shown === undefined) return;
    const saved = shown.artifact;
    const replayed = await this.status.run(`Replay ${saved.scenario} / ${saved.variant}, seed ${saved.seed}`, (api, onProgress) => api.replayArtifact(saved, onProgress));
    if (replayed === undefined) return;
    const note = replayNote(replayed.comparison, `Replay of ${shown.source}, from its seed and fault schedule in this page`);
    this.show({ artifact: replayed.artifact, source: `a replay of ${shown.source}`, notes: [note], verification: { kind: 'replayed', comparison: replayed.comparison }, basis: shown.basis });
  }

  private save(): void {
    const a = this.shown?.artifact;
    if (a !== undefined) download(artifactFileName(a), artifactText(a));
  }

  private async loadChosenFile(): Promise<void> {
    const file = this.fileInput.files?.[0];
    if (file === undefined) return;
    await this.openFile(file);
    this.fileInput.value = ''; // choosing the same file again loads it again
  }

  async openFile(file: File): Promise<void> {
    let text: string;
    try {
      text = await file.text();
    } catch (error) {
      this.status.showError(`${file.name}: could not be read (${(error as Error).message}); choose the file again`);
      return;
    }
    // A file name is the sender's choice too: one with a bidi control or an invisible character is shown escaped.
    const name = keyCharacterProblem(file.name) === undefined ? file.name : showKeyText(file.name);
    await this.openText(text, { label: name, source: `the file ${name}, loaded in this page`, fileName: file.name });
  }

  /**
   * Shows an artifact given as text (`label` names it in errors, `source` says where it came from,
   * `fileName` is the file a terminal would replay). Its checks are never shown as they are written:
   * it is replayed first, and the replay is shown whole, compared with the artifact's record; if the
   * replay fails, the artifact is shown marked NOT VERIFIED.
   */
  async openText(text: string, from: { readonly label: string; readonly source: string; readonly fileName?: string }): Promise<boolean> {
    let artifact: ArtifactJson;
    try {
      artifact = parseArtifactText(text, from.label);
    } catch (error) {
      this.status.showError((error as Error).message);
      return false;
    }
    const basis: CommandBasis = { kind: 'file', ...(from.fileName === undefined ? {} : { name: from.fileName }) };
    const replayed = await this.status.run(`Replay ${from.label} to verify its checks`, (api, onProgress) => api.replayArtifact(artifact, onProgress));
    if (replayed === undefined) {
      this.show({ artifact, source: from.source, notes: [], verification: { kind: 'not-verified', reason: 'see the error above' }, basis });
      return true;
    }
    const note = replayNote(replayed.comparison, 'This artifact was replayed from its seed and fault schedule in this page before its checks are shown');
    this.show({ artifact: replayed.artifact, source: from.source, notes: [note], verification: { kind: 'replayed', comparison: replayed.comparison }, basis });
    return true;
  }

  /** Puts something to decide in place of the result (the ?run= prompt, views/run-link.ts). */
  offer(element: HTMLElement): void {
    this.result.replaceChildren(element);
  }

  private show(run: Omit<ShownRun, 'command'>): void {
    const shown: ShownRun = { ...run, command: buildReplayCommand(run.artifact, this.scenarios, run.basis) };
    this.shown = shown;
    this.result.replaceChildren(runResult(shown));
    for (const b of [this.saveButton, this.replayButton, this.timelineButton]) b.disabled = false;
    this.onShow(shown);
  }
}

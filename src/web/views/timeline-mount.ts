// Where the workbench gets the run timeline from (viz/timeline, built beside this app). Until that view
// lands, a placeholder says so; the app's code around it is already the real one.
export interface TimelineHandle {
  destroy(): void;
}

export function mountTimeline(container: HTMLElement, artifact: unknown, options: { title?: string } = {}): TimelineHandle {
  const note = container.ownerDocument.createElement('p');
  note.className = 'note';
  note.textContent = `${options.title ?? 'Run timeline'}: the timeline view is not part of this build yet (${typeof artifact}).`;
  container.append(note);
  return { destroy: () => note.remove() };
}

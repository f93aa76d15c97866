// Writes a run's offline report: the viewer bundle (built on demand) and the artifact, in one HTML file,
// written atomically (src/files/atomic-write.ts), so a reader never opens half a report.
import { writeFileAtomically } from '../files/atomic-write.js';
import { EXTERNAL_REFERENCE, reportHtml } from './html.js';
import { viewerBundle } from './viewer-bundle.js';

export interface ReportInput {
  readonly title: string;
  readonly artifactJson: string;
  readonly progress?: (line: string) => void;
}

/** Returns the page's size in bytes. */
export async function writeReport(path: string, input: ReportInput): Promise<number> {
  const viewerJs = await viewerBundle(input.progress === undefined ? {} : { progress: input.progress });
  const html = reportHtml({ title: input.title, artifactJson: input.artifactJson, viewerJs });
  // The viewer is checked, not the run's data: a string in the data is shown, never fetched.
  const external = EXTERNAL_REFERENCE.exec(viewerJs);
  if (external !== null) {
    throw new Error(`report: the viewer would fetch from the network (${JSON.stringify(viewerJs.slice(external.index, external.index + 80))}); the page must be self-contained: inline what the viewer needs (src/report/viewer-bundle.ts)`);
  }
  await writeFileAtomically(path, html);
  return Buffer.byteLength(html);
}

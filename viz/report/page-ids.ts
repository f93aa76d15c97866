// The element ids of the offline report page: src/report/html.ts writes them, main.ts reads them.

/** <script type="application/json"> holding the run artifact. */
export const RUN_ELEMENT_ID = 'lockstep-run';
/** The element the timeline is mounted in. */
export const ROOT_ELEMENT_ID = 'lockstep-report';

// What the offline report says about its checks (issue 18: a verdict shown is one computed, or marked as
// not): the page cannot run the simulator, so it shows the checks `lockstep run` recorded, and says so.
// Its own file, without DOM types, so the report's browser test reads the same text.
export const NOT_VERIFIED_NOTICE =
  'Not verified in this page: these are the checks lockstep run recorded when it wrote this report, and a page cannot run the simulation again. To verify them, replay the run: lockstep replay on its artifact (lockstep run … --out FILE saves one), or load the artifact in the workbench (lockstep web).';

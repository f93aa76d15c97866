// vite's ?raw suffix imports a file as its text (src/web/worker-api/topology-presets.ts).
declare module '*?raw' {
  const text: string;
  export default text;
}

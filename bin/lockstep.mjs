#!/usr/bin/env node
// The `lockstep` command: runs src/cli.ts through tsx's loader so that `npx lockstep` works straight
// after `npm ci`, with no build step that could go stale.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli.ts');
process.exitCode = await main(process.argv.slice(2));

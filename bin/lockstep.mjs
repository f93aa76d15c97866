#!/usr/bin/env node
// The `lockstep` command: runs src/cli.ts through tsx's loader so that `npx lockstep` works straight
// after `npm ci`, with no build step that could go stale.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli.ts');
// Exit as soon as the command is done: a request still waiting on an unreachable etcd must not keep
// the process alive (stdout and stderr are synchronous for files and pipes on Linux, so nothing is lost).
process.exit(await main(process.argv.slice(2)));

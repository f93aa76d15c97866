// The Web Worker that runs the simulator (issue 7): core/, sim/ and scenarios/ unchanged, off the page's
// thread, so a long run never freezes the page; comlink turns the API into messages.
import * as Comlink from 'comlink';
import { createWorkbenchApi } from './workbench-api.js';
import { messageChannelYield } from './yield-to-host.js';

Comlink.expose(createWorkbenchApi(messageChannelYield()));

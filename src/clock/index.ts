// Real implementations of core's Clock and Random ports.
export { createRealClock, sleepMs } from './real-clock.js';
export { createCryptoRandom, createSeededRandom } from './real-random.js';

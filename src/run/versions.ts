/** The versions a run records, so a result can be traced to the code that produced it. */
import { createRequire } from 'node:module';
import { VERSION as OPENAI_VERSION } from 'openai/version';

const require = createRequire(import.meta.url);

export const BAS_VERSION: string = (require('../../package.json') as { version: string }).version;
export { OPENAI_VERSION };

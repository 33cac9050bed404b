/** The built-in local tools, one instance each; the registry sorts them for the model. */
import type { Tool } from '../tool.js';
import { bashTool } from './bash.js';
import { directoryListTool } from './directoryList.js';
import { fileEditTool } from './fileEdit.js';
import { fileReadTool } from './fileRead.js';
import { fileWriteTool } from './fileWrite.js';
import { globTool } from './glob.js';
import { grepTool } from './grep.js';
import { httpTool } from './http.js';
import { systemInfoTool } from './systemInfo.js';
import { thinkTool } from './think.js';

export function builtinTools(): Tool[] {
  return [
    fileReadTool,
    fileWriteTool,
    fileEditTool,
    globTool,
    grepTool,
    bashTool,
    thinkTool,
    directoryListTool,
    httpTool,
    systemInfoTool,
  ];
}

export {
  bashTool,
  directoryListTool,
  fileEditTool,
  fileReadTool,
  fileWriteTool,
  globTool,
  grepTool,
  httpTool,
  systemInfoTool,
  thinkTool,
};
export { createGrepTool } from './grep.js';

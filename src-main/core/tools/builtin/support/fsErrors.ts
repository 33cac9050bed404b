/** Turning a failed write into a result the model can act on. */
import { errorResult, type ToolResult } from '../../tool.js';
import { errnoCode } from './toolPaths.js';

export function writeError(e: unknown, shown: string): ToolResult {
  const code = errnoCode(e);
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS')
    return errorResult('permission', `no permission to write ${shown}`);
  if (code === 'ENOTDIR' || code === 'EISDIR')
    return errorResult('validation', `cannot write ${shown}: part of the path is not a folder`);
  if (code === 'ENOSPC') return errorResult('business', `cannot write ${shown}: the disk is full`);
  return errorResult('transient', `could not write ${shown}: ${e instanceof Error ? e.message : String(e)}`);
}

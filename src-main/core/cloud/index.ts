/** Cloud delegation: the `cloud_delegate` tool for a Shannon-compatible gateway (docs/cloud.md). */
export { CloudToolProvider, cloudToolProvider, CLOUD_PROVIDER_ID, type CloudProviderOptions } from './provider.js';
export {
  createCloudDelegateTool,
  CLOUD_DELEGATE_TOOL,
  CLOUD_RESULT_BUDGET,
  CONTEXT_MAX_CHARS,
  MAX_CONSECUTIVE_FAILURES,
  type CloudDelegateDeps,
  type CloudDelegateInput,
  type CloudProgress,
  type CloudUsage,
} from './delegate.js';
export { GatewayClient, GatewayError, type Fetch, type SubmittedTask, type TaskStatus } from './gateway.js';
export { SseParser, type SseEvent } from './sse.js';
export {
  cloudBaseUrl,
  cloudKeyFile,
  fileCloudKeyStore,
  resolveCloudKey,
  CLOUD_KEY_ENV,
  type CloudConfig,
  type CloudKeyStore,
} from './settings.js';

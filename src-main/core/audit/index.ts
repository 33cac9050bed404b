export {
  AUDIT_ARGS_MAX,
  AUDIT_KEEP,
  AUDIT_MAX_BYTES,
  AuditEntry,
  AuditLog,
  summarizeArgs,
  type AuditEntryInput,
  type AuditLogOptions,
} from './auditLog.js';
export { MASK, maskSecrets, maskSecretsIn } from './maskSecrets.js';

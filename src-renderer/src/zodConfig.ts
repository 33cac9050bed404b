// The CSP forbids eval; tell zod up front instead of letting it probe with new Function(). Its own
// module, imported first by main.tsx: imports run before the importing module's body, so a schema
// parsed while another module loads would otherwise probe (a CSP violation) before the setting.
import { z } from 'zod';

z.config({ jitless: true });

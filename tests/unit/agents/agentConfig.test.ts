import { describe, expect, it } from 'vitest';
import { AgentConfig } from '../../../src-main/core/agents/agentConfig.js';
import { parseAgentConfigText } from '../../../src-main/core/agents/agentFiles.js';
import { inDailyWindow, parseDailyWindow, parseDuration } from '../../../src-main/core/agents/duration.js';
import { starterConfig } from '../../../src-main/core/agents/starterFiles.js';

const FILE = '/home/agents/coder/config.yaml';

function problemsOf(text: string) {
  const r = parseAgentConfigText(FILE, text);
  if (r.ok) throw new Error(`expected problems, got a valid config: ${JSON.stringify(r.value)}`);
  return r.problems;
}

describe('agent config.yaml: each wrong field is named with its line', () => {
  // [yaml, field, line, message fragment]
  const cases: Array<[string, string, number, RegExp]> = [
    ['model: ""\n', 'model', 1, /at least 1|too small|>=1/i],
    ['model: 5\n', 'model', 1, /expected string, got number 5/],
    ['small_model: [a]\n', 'small_model', 1, /expected string, got a list/],
    ['max_iterations: 0\n', 'max_iterations', 1, />0|positive|too small/i],
    ['max_iterations: 2.5\n', 'max_iterations', 1, /int/i],
    ['max_iterations: 5000\n', 'max_iterations', 1, /<=1000|too big/i],
    ['max_tokens: "lots"\n', 'max_tokens', 1, /expected number, got string "lots"/],
    ['context_window: -1\n', 'context_window', 1, /too small|>0/i],
    ['mode: yolo\n', 'mode', 1, /expected one of default\|acceptEdits\|plan\|dontAsk\|bypassPermissions/],
    ['auto_approve: "yes"\n', 'auto_approve', 1, /expected boolean/],
    ['tools:\n  allowed: bash\n', 'tools.allowed', 2, /expected array, got string/],
    ['tools:\n  denied: ["not a tool!"]\n', 'tools.denied[0]', 2, /not a tool name/],
    ['mcp_servers:\n  notes:\n    type: ftp\n', 'mcp_servers.notes.type', 3, /expected one of stdio\|http/],
    [
      'mcp_servers:\n  notes:\n    command: x\n    _inherit: true\n',
      'mcp_servers.notes._inherit',
      4,
      /belongs in the global config/,
    ],
    ['permissions:\n  denied_commands: [""]\n', 'permissions.denied_commands[0]', 2, /at least 1|too small/i],
    ['permissions:\n  always_allow_tools: [7]\n', 'permissions.always_allow_tools[0]', 2, /expected string/],
    ['budget:\n  max_usd_per_run: -1\n', 'budget.max_usd_per_run', 2, />=0|too small/i],
    ['heartbeat:\n  active_hours: "09:00-18:00"\n', 'heartbeat.every', 1, /missing/],
    ['heartbeat:\n  every: 30\n', 'heartbeat.every', 2, /expected string, got number 30/],
    ['heartbeat:\n  every: soon\n', 'heartbeat.every', 2, /"soon" is not a duration/],
    ['heartbeat:\n  every: 30s\n', 'heartbeat.every', 2, /shorter than the minimum 1m/],
    ['heartbeat:\n  every: 8d\n', 'heartbeat.every', 2, /longer than the maximum 7d/],
    ['heartbeat:\n  every: 30m1h\n', 'heartbeat.every', 2, /largest first/],
    [
      'heartbeat:\n  every: 1h\n  active_hours: "09:00 to 18:00"\n',
      'heartbeat.active_hours',
      3,
      /not a window of the day/,
    ],
    [
      'heartbeat:\n  every: 1h\n  active_hours: "25:00-26:00"\n',
      'heartbeat.active_hours',
      3,
      /start "25:00" is not a time/,
    ],
    [
      'heartbeat:\n  every: 1h\n  active_hours: "09:00-09:60"\n',
      'heartbeat.active_hours',
      3,
      /end "09:60" is not a time/,
    ],
    ['heartbeat:\n  every: 1h\n  active_hours: "10:00-10:00"\n', 'heartbeat.active_hours', 3, /same time/],
    [
      'heartbeat:\n  every: 1h\n  overlap_prevention: sometimes\n',
      'heartbeat.overlap_prevention',
      3,
      /expected boolean/,
    ],
    ['watch:\n  - path: Downloads\n', 'watch[0].path', 2, /absolute path or start with ~\//],
    ['watch:\n  - glob: "*.pdf"\n', 'watch[0].path', 2, /missing/],
    ['watch:\n  - path: ~/x\n    debounce: 1.5\n', 'watch[0].debounce', 3, /int/i],
    ['watch:\n  - path: ~/x\n    debounce: quick\n', 'watch[0].debounce', 3, /"quick" is not a duration/],
    ['watch:\n  - path: ~/x\n    debounce: 2h\n', 'watch[0].debounce', 3, /longer than the maximum 1h/],
    [
      'watch:\n  - path: ~/x\n    debounce: true\n',
      'watch[0].debounce',
      3,
      /expected number or string, got boolean true/,
    ],
    ['watch: {path: /tmp}\n', 'watch', 1, /expected array, got a mapping/],
    ['cwd: projects/rein\n', 'cwd', 1, /absolute path or start with ~\//],
  ];

  it.each(cases)('%j → %s', (yaml, field, line, message) => {
    const problems = problemsOf(yaml);
    expect(problems, JSON.stringify(problems)).toHaveLength(1);
    const [p] = problems;
    expect(p).toMatchObject({ file: FILE, field, line });
    expect(p!.column).toBeGreaterThanOrEqual(1);
    expect(p!.message).toMatch(message);
  });

  it('names an unknown key, at its own line and column, wherever it is', () => {
    const problems = problemsOf(
      'model: m\nmodle: typo\npermissions:\n  mode: plan\nheartbeat:\n  every: 1h\n  isolated_session: true\n',
    );
    expect(problems.map((p) => [p.field, p.line, p.column, p.message])).toEqual([
      ['modle', 2, 1, 'unknown key'],
      ['permissions.mode', 4, 3, 'unknown key'],
      ['heartbeat.isolated_session', 7, 3, 'unknown key'],
    ]);
  });

  it('reports every problem of a file at once, in file order', () => {
    const problems = problemsOf('mode: nope\nmax_tokens: 0\ntools:\n  allowed: 3\nwatch:\n  - path: rel\n');
    expect(problems.map((p) => `${p.line}:${p.field}`)).toEqual([
      '1:mode',
      '2:max_tokens',
      '4:tools.allowed',
      '6:watch[0].path',
    ]);
  });

  it('reports a YAML syntax error with its position and no field', () => {
    const problems = problemsOf('model: [unclosed\nmode: plan\n');
    expect(problems[0]).toMatchObject({ file: FILE, line: expect.any(Number), column: expect.any(Number) });
    expect(problems[0]!.field).toBeUndefined();
    expect(problems[0]!.message).toMatch(/^YAML syntax error/);
  });

  it('rejects a file that is not a mapping', () => {
    expect(problemsOf('- model: x\n')[0]).toMatchObject({
      field: '(top level)',
      message: expect.stringMatching(/expected object, got a list/),
    });
  });

  it('treats an empty or comments-only file as "inherit everything"', () => {
    expect(parseAgentConfigText(FILE, '')).toEqual({ ok: true, value: {} });
    expect(parseAgentConfigText(FILE, '# nothing yet\n')).toEqual({ ok: true, value: {} });
  });

  it('accepts every key at once, keeping absent keys absent (so they inherit)', () => {
    const r = parseAgentConfigText(
      FILE,
      [
        'model: m1',
        'small_model: s1',
        'max_iterations: 40',
        'max_tokens: 4000',
        'context_window: 100000',
        'mode: plan',
        'auto_approve: true',
        'tools: {allowed: [file_read, grep], denied: [bash]}',
        'mcp_servers:',
        '  notes: {command: npx, args: ["-y", "x"]}',
        'permissions:',
        '  allowed_commands: ["git status"]',
        '  denied_commands: ["git push*"]',
        '  always_allow_tools: [file_read]',
        '  gui_unattended: [screenshot]',
        '  network_allowlist: ["*.github.com"]',
        '  sensitive_patterns: ["*.p12"]',
        'budget: {max_usd_per_run: 0.5}',
        'heartbeat: {every: 1h30m, active_hours: "22:00-06:00", model: small, overlap_prevention: false}',
        'watch:',
        '  - {path: ~/Downloads, glob: "*.pdf", debounce: 500ms, prompt: sort them}',
        '  - {path: /tmp/in, debounce: 1500}',
        'cwd: ~/Projects',
      ].join('\n'),
    );
    expect(r.ok, JSON.stringify(r)).toBe(true);
    if (!r.ok) return;
    expect(r.value.tools).toEqual({ allowed: ['file_read', 'grep'], denied: ['bash'] });
    expect(r.value.mcp_servers?.notes).toMatchObject({
      type: 'stdio',
      command: 'npx',
      args: ['-y', 'x'],
      disabled: false,
    });
    expect(r.value.heartbeat).toEqual({
      every: '1h30m',
      active_hours: '22:00-06:00',
      model: 'small',
      overlap_prevention: false,
    });
    expect(r.value.watch?.[1]).toEqual({ path: '/tmp/in', debounce: 1500 });
    expect(AgentConfig.parse({ mode: 'plan' })).toEqual({ mode: 'plan' });
  });
});

describe('the starter config.yaml', () => {
  it('parses as an empty config (the new agent inherits everything)', () => {
    expect(parseAgentConfigText(FILE, starterConfig('coder'))).toEqual({ ok: true, value: {} });
  });

  it('shows every key with an example that is valid once uncommented', () => {
    const examples = starterConfig('coder')
      .split('\n')
      .filter((l) => l.startsWith('# '))
      .map((l) => l.slice(2))
      .join('\n');
    const r = parseAgentConfigText(FILE, examples);
    expect(r.ok, JSON.stringify(r)).toBe(true);
    if (!r.ok) return;
    expect(Object.keys(r.value).sort()).toEqual(Object.keys(AgentConfig.shape).sort());
  });
});

describe('durations', () => {
  it.each([
    ['30m', 1_800_000],
    ['1h', 3_600_000],
    ['1h30m', 5_400_000],
    ['90s', 90_000],
    ['500ms', 500],
    ['2.5s', 2_500],
    ['1d', 86_400_000],
    [' 1m ', 60_000],
  ])('%s = %d ms', (text, ms) => {
    expect(parseDuration(text)).toEqual({ ok: true, value: ms });
  });

  it.each([
    ['', /empty/],
    ['30', /no unit/],
    ['1h30', /no unit/],
    ['10 m', /not a duration/],
    ['5x', /not a duration/],
    ['-5m', /not a duration/],
    ['1m1m', /largest first/],
  ])('refuses %j', (text, message) => {
    const r = parseDuration(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(message);
  });
});

describe('daily windows', () => {
  it('parses day and overnight windows, and 24:00 as an end', () => {
    expect(parseDailyWindow('09:00-18:00')).toEqual({ ok: true, value: { startMinute: 540, endMinute: 1080 } });
    expect(parseDailyWindow('9:30 - 17:15')).toEqual({ ok: true, value: { startMinute: 570, endMinute: 1035 } });
    expect(parseDailyWindow('22:00-06:00')).toEqual({ ok: true, value: { startMinute: 1320, endMinute: 360 } });
    expect(parseDailyWindow('18:00-24:00')).toEqual({ ok: true, value: { startMinute: 1080, endMinute: 1440 } });
    expect(parseDailyWindow('24:00-06:00').ok).toBe(false);
    expect(parseDailyWindow('18:00-24:30').ok).toBe(false);
  });

  it('knows which minutes are inside, wrapping overnight windows', () => {
    const day = { startMinute: 540, endMinute: 1080 };
    expect([539, 540, 1079, 1080].map((m) => inDailyWindow(day, m))).toEqual([false, true, true, false]);
    const night = { startMinute: 1320, endMinute: 360 };
    expect([1319, 1320, 0, 359, 360, 720].map((m) => inDailyWindow(night, m))).toEqual([
      false,
      true,
      true,
      true,
      false,
      false,
    ]);
  });
});

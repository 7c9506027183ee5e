// The walk's page-independent check: every number a page marks as a served value (data-json on a card or a table
// cell) is a value of the server's /data answer, and its text says that value in the unit it shows; every summary
// card the page ties to a server property (data-key) shows "—" when the answer has no value for it, and no card
// shows 0 without a served value behind it. The unit conversions below are written here, not taken from the UI.

const TIME_US = { ns: 1e-3, 'µs': 1, us: 1, ms: 1e3, s: 1e6 };
const BYTES = { B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3, TiB: 1024 ** 4 };
const EMPTY = new Set(['', 'unknown', 'nan', 'NaN']);

// Every number in the answer, and every string that is a number (DataTable properties are strings).
function servedNumbers(json) {
  const out = new Set();
  const walk = (v) => {
    if (typeof v === 'number') out.add(v);
    else if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) out.add(Number(v));
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(json);
  return out;
}

function servedStrings(json) {
  const out = new Set();
  const walk = (v) => {
    if (typeof v === 'string') out.add(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(json);
  return out;
}

// The values the answer holds for a property name, wherever it is (DataTable p, nested objects).
function servedValues(json, key) {
  const out = [];
  const walk = (v) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      if (Object.hasOwn(v, key) && (v[key] === null || typeof v[key] !== 'object')) out.push(v[key]);
      Object.values(v).forEach(walk);
    }
  };
  walk(json);
  return out;
}

// "1,234.5 ms" → { value: 1234.5, unit: 'ms', decimals: 1 }.
export function parseShown(text) {
  const m = /(-?\d[\d,]*(?:\.(\d+))?)\s*(ns|µs|us|ms|s|B|KiB|MiB|GiB|TiB|%)?(?![A-Za-z])/.exec(text.replace(/\u00a0/g, ' '));
  if (!m) return null;
  return { value: Number(m[1].replace(/,/g, '')), unit: m[3] ?? '', decimals: m[2]?.length ?? 0 };
}

// The served value in the shown text's unit, or null when the two units do not measure the same thing.
function servedInShownUnit(raw, rawUnit, shownUnit) {
  if (rawUnit in TIME_US && shownUnit in TIME_US) return (raw * TIME_US[rawUnit]) / TIME_US[shownUnit];
  if (rawUnit in BYTES && shownUnit in BYTES) return (raw * BYTES[rawUnit]) / BYTES[shownUnit];
  if (rawUnit === 'fraction' && shownUnit === '%') return raw * 100;
  if (rawUnit === '%' && shownUnit === '%') return raw;
  if ((rawUnit === '' || rawUnit === 'rows') && !(shownUnit in TIME_US) && !(shownUnit in BYTES)) return raw;
  return null;
}

export async function checkJsonAgreement({ page, data, assert, where }) {
  const marked = await page.$$eval('[data-json]', (els) => els.map((e) => ({ json: e.getAttribute('data-json'), unit: e.getAttribute('data-json-unit') ?? '',
    text: e.textContent.trim(), what: e.closest('[data-key]')?.getAttribute('data-key') ?? e.getAttribute('data-col') ?? e.className })));
  const served = servedNumbers(data), servedText = servedStrings(data);
  const problems = [];
  for (const m of marked) {
    const raw = Number(m.json);
    // A served text that is not a plain number ("49.0%", "2 (num tasks per host = 1)") is shown as served.
    if (!Number.isFinite(raw)) {
      if (!servedText.has(m.json)) problems.push(`${m.what}: marked text "${m.json}" is not in /data`);
      else if (m.text !== `${m.json}${m.unit ? ' ' + m.unit : ''}`) problems.push(`${m.what}: shows "${m.text}", served "${m.json}"`);
      continue;
    }
    if (m.unit !== 'rows' && !served.has(raw)) { problems.push(`${m.what}: marked value ${m.json} is not in /data`); continue; }
    const shown = parseShown(m.text);
    if (!shown) { problems.push(`${m.what}: "${m.text}" shows no number for served ${m.json}`); continue; }
    const expected = servedInShownUnit(raw, m.unit, shown.unit);
    if (expected === null) { problems.push(`${m.what}: "${m.text}" is in ${shown.unit || 'no unit'}, served ${m.json} ${m.unit}`); continue; }
    const tolerance = 0.5 * 10 ** -shown.decimals + Math.abs(expected) * 1e-9;
    if (Math.abs(shown.value - expected) > tolerance) problems.push(`${m.what}: shows "${m.text}", served ${m.json} ${m.unit} (= ${expected} ${shown.unit})`);
  }
  const cardsShown = await page.$$eval('.stat-card', (cs) => cs.map((c) => ({ key: c.getAttribute('data-key'), label: c.querySelector('.stat-label')?.textContent,
    value: c.querySelector('.stat-value')?.textContent.trim() ?? '', json: c.querySelector('.stat-value')?.getAttribute('data-json') })));
  for (const c of cardsShown) {
    // A figure with no number behind it must not read as zero.
    if (/^0(\.0+)?(\s|%|$)/.test(c.value) && c.json === null) problems.push(`card "${c.label}" shows ${c.value} with no served value behind it`);
    // A number the page shows is one the answer holds (dates and names are not numbers).
    if (/^-?\d/.test(c.value) && !/^\d{4}-\d\d-\d\d/.test(c.value) && c.json === null) problems.push(`card "${c.label}" shows ${c.value} unmarked: the walk cannot check it against /data`);
    if (!c.key) continue;
    const values = servedValues(data, c.key);
    if (values.length && values.every((v) => v === null || EMPTY.has(String(v)))) {
      if (c.value !== '—') problems.push(`card "${c.label}" (${c.key}) shows "${c.value}" but /data has no value (${JSON.stringify(values[0])})`);
    }
  }
  // A stacked chart's legend names the series it draws, no series without a bar.
  const stacks = await page.$$eval('figure.chart-box', (figs) => figs.filter((f) => f.querySelector('svg rect.bar[data-series]')).map((f) => ({
    chart: f.querySelector('svg').getAttribute('data-chart'), legend: Array.from(f.querySelectorAll('.legend-item')).map((x) => x.textContent),
    drawn: new Set(Array.from(f.querySelectorAll('svg rect.bar')).map((r) => r.getAttribute('data-series'))).size })));
  for (const c of stacks) if (c.legend.length !== c.drawn) problems.push(`chart ${c.chart}: legend ${JSON.stringify(c.legend)} for ${c.drawn} series drawn`);
  // A run without an accelerator shows no device panels, pies or series.
  if (servedValues(data, 'hardware_type').includes('CPU_ONLY')) {
    const device = await page.$$eval('h2, h3, figcaption, .legend-item', (els) => els.map((e) => e.textContent.trim()).filter((t) => /^Device/.test(t)));
    if (device.length) problems.push(`a CPU-only run shows device panels or series: ${device.slice(0, 4).join(' | ')}`);
  }
  assert(problems.length === 0, `${where}: ${problems.length} disagreements with /data:\n  ${problems.slice(0, 12).join('\n  ')}`);
  return marked.length;
}

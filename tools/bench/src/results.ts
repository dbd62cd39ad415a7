import { z } from 'zod';
import { formatTable } from './table';

const FigureSchema = z.object({
  name: z.string(),
  value: z.number().or(z.null()),
  unit: z.string(),
  samples: z.number().int().nonnegative().optional(),
});

/** One `npm run bench` run as written to JSON, for comparing runs. */
export const BenchRunSchema = z.object({
  startedAt: z.string(),
  finishedAt: z.string(),
  machine: z.object({
    cores: z.number().int().positive(),
    /** os.loadavg() (1, 5, 15 minutes) when the run started and when it finished. */
    loadAverageAtStart: z.array(z.number()).length(3),
    loadAverageAtEnd: z.array(z.number()).length(3),
    node: z.string(),
  }),
  benches: z.array(
    z.object({
      file: z.string(),
      exitCode: z.number().int(),
      durationMs: z.number().nonnegative(),
      figures: z.array(FigureSchema),
      /** Figures off the naming convention, with what is wrong with each. */
      problems: z.array(z.string()),
    }),
  ),
});
export type BenchRun = z.infer<typeof BenchRunSchema>;
export type BenchResult = BenchRun['benches'][number];

/** Reads an earlier run's JSON text; throws naming the file when it is not one. */
export function parseBenchRun(text: string, file: string): BenchRun {
  const parsed = BenchRunSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`${file} is not a bench run: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

/** The file name for a run started at `date` (sortable, no colons). */
export function resultFileName(date: Date): string {
  return `${date
    .toISOString()
    .replaceAll(':', '-')
    .replace(/\.\d+Z$/, 'Z')}.json`;
}

const show = (value: number | null): string => (value === null ? 'NaN' : String(value));

/** The end-of-run summary: every figure of every bench, with its sample count. */
export function formatSummary(run: BenchRun): string {
  const rows = run.benches.flatMap((bench) =>
    bench.figures.map((figure) => [
      figure.name,
      show(figure.value),
      figure.unit,
      figure.samples === undefined ? '?' : String(figure.samples),
      bench.file.split('/').at(-1) ?? bench.file,
    ]),
  );
  const load = run.machine.loadAverageAtStart.map((value) => value.toFixed(2)).join(' ');
  const header = `${rows.length} figures; ${run.machine.cores} cores; load average at start ${load}`;
  return `${header}\n${formatTable(['figure', 'value', 'unit', 'n', 'bench'], rows)}`;
}

/** Each figure of `after` against the same-named figure of `before`, as a table. */
export function formatComparison(before: BenchRun, after: BenchRun): string {
  const earlier = new Map(before.benches.flatMap((bench) => bench.figures.map((f) => [f.name, f] as const)));
  const rows = after.benches.flatMap((bench) =>
    bench.figures.map((figure) => {
      const old = earlier.get(figure.name);
      if (old === undefined || old.value === null || figure.value === null)
        return [
          figure.name,
          old === undefined ? '-' : show(old.value),
          show(figure.value),
          figure.unit,
          '',
          '',
        ];
      const delta = figure.value - old.value;
      const percent = old.value === 0 ? '' : `${signed((delta / Math.abs(old.value)) * 100, 1)}%`;
      return [figure.name, show(old.value), show(figure.value), figure.unit, signed(delta, 3), percent];
    }),
  );
  return formatTable(['figure', 'before', 'after', 'unit', 'delta', 'delta %'], rows);
}

function signed(value: number, digits: number): string {
  const text = Number(value.toFixed(digits)).toString();
  return value > 0 ? `+${text}` : text;
}

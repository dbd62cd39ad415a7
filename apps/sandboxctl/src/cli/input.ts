import { CliError } from './errors';
import type { CliIo } from './runtime';

/** The text of `-f FILE`, or of standard input for `-f -`. */
export async function readInput(io: CliIo, file: string): Promise<{ text: string; source: string }> {
  if (file === '-') {
    let text = '';
    for await (const chunk of io.stdin) text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    return { text, source: '<stdin>' };
  }
  try {
    return { text: io.readFile(file), source: file };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : (code ?? (error as Error).message);
    throw new CliError(`cannot read ${file}: ${reason}`, { cause: error });
  }
}

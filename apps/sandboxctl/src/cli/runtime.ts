import type { Command } from 'commander';
import { createApiClient, type ApiClient } from '../client/api-client';
import {
  configPath,
  readConfigFile,
  readTokenFile,
  resolveSettings,
  type CliEnv,
  type ResolvedSettings,
  type ServiceDefinition,
} from '../config';
import { Printer, useColour, type OutputFormat, type OutputStream } from '../output/printer';

/** Everything a run of the CLI touches outside itself (tests pass their own). */
export interface CliIo {
  stdout: OutputStream;
  stderr: OutputStream;
  stdin: AsyncIterable<string | Buffer>;
  env: CliEnv;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  readFile: (path: string) => string;
  fetch?: typeof fetch;
}

/** The global flags every command sees. */
export interface GlobalOptions {
  output: OutputFormat;
  context?: string;
  server?: string[];
  requestTimeout: number;
}

/** What a command's action works with: output, a typed client over the resolved endpoints, time. */
export interface CommandSession {
  readonly printer: Printer;
  readonly client: ApiClient;
  readonly settings: ResolvedSettings;
  readonly io: CliIo;
}

/** One line of `sandboxctl status` that a module knows how to find out. */
export interface StatusFact {
  label: string;
  value: string;
  /** false makes `status` exit 1; undefined is informational. */
  ok?: boolean;
  /** The same fact for `-o json|yaml`. */
  data: unknown;
}

/** One command module: the services it talks to, how it adds its commands, what it adds to `status`. */
export interface CommandModule {
  readonly services?: readonly ServiceDefinition[];
  register(program: Command, runtime: CliRuntime): void;
  /** Facts for `status`; a fact that cannot be found out is reported, not thrown. */
  status?(session: CommandSession): Promise<StatusFact[]>;
}

/** Shared by every command of one run. */
export class CliRuntime {
  readonly io: CliIo;
  readonly services: readonly ServiceDefinition[];
  readonly modules: readonly CommandModule[];

  constructor(io: CliIo, services: readonly ServiceDefinition[], modules: readonly CommandModule[]) {
    this.io = io;
    this.services = services;
    this.modules = modules;
  }

  /** Builds the session of the running command from its (and the program's) flags. */
  session(command: Command): CommandSession {
    const options = command.optsWithGlobals<GlobalOptions>();
    const path = configPath(this.io.env);
    const settings = resolveSettings(
      this.services,
      this.io.env,
      { context: options.context, server: options.server },
      readConfigFile(path, this.io.readFile),
      path,
    );
    const printer = new Printer({
      format: options.output,
      colour: useColour(this.io.stdout, this.io.env),
      stdout: this.io.stdout,
      stderr: this.io.stderr,
    });
    const client = createApiClient({
      endpoints: settings.endpoints,
      readTokenFile,
      timeoutMs: options.requestTimeout,
      fetch: this.io.fetch,
    });
    return { printer, client, settings, io: this.io };
  }
}

import { Argument, type Command } from 'commander';
import type { CommandModule } from '../cli/runtime';

interface Node {
  path: string[];
  subcommands: string[];
  flags: string[];
}

/** Every command path with its subcommands and flags (global flags included everywhere). */
function walk(command: Command, path: string[], globals: string[]): Node[] {
  const flags = [
    ...globals,
    ...command.options.flatMap((option) => [option.long, option.short].filter((f): f is string => !!f)),
  ];
  const here: Node = {
    path,
    subcommands: command.commands.map((child) => child.name()),
    flags: [...flags, '--help'],
  };
  // The program's own flags (but not --version) apply to every subcommand.
  const inherited =
    path.length === 0 ? flags.filter((flag) => flag !== '--version' && flag !== '-V') : globals;
  return [here, ...command.commands.flatMap((child) => walk(child, [...path, child.name()], inherited))];
}

function bashScript(nodes: Node[]): string {
  const cases = nodes
    .map(
      (node) => `    "${node.path.join(' ')}") words="${[...node.subcommands, ...node.flags].join(' ')}" ;;`,
    )
    .join('\n');
  const paths = nodes.filter((node) => node.path.length > 0).map((node) => `"${node.path.join(' ')}"`);
  return `# bash completion for sandboxctl: source <(sandboxctl completion bash)
_sandboxctl() {
  local cur path="" word candidate i words=""
  cur="\${COMP_WORDS[COMP_CWORD]}"
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    [[ "$word" == -* ]] && continue
    candidate="\${path:+$path }$word"
    case "$candidate" in
      ${paths.join('|')}) path="$candidate" ;;
    esac
  done
  case "$path" in
${cases}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _sandboxctl sandboxctl
`;
}

function zshScript(nodes: Node[]): string {
  // zsh runs the bash function through bashcompinit, so both shells complete the same tree.
  return `#compdef sandboxctl
# zsh completion for sandboxctl: source <(sandboxctl completion zsh)
autoload -U +X bashcompinit && bashcompinit
${bashScript(nodes)}`;
}

/** `completion bash|zsh`: a completion script for the command tree as it is. */
export const completionCommand: CommandModule = {
  register(program, runtime) {
    program
      .command('completion')
      .description('Print a shell completion script')
      .addArgument(new Argument('<shell>', 'shell').choices(['bash', 'zsh']))
      .addHelpText(
        'after',
        '\nExamples:\n  source <(sandboxctl completion bash)\n  sandboxctl completion zsh > "${fpath[1]}/_sandboxctl"',
      )
      .action((shell: 'bash' | 'zsh') => {
        const nodes = walk(program, [], []);
        runtime.io.stdout.write(shell === 'bash' ? bashScript(nodes) : zshScript(nodes));
      });
  },
};

/**
 * `binlog completion`: a bash completion script of the commands and each command's flags, read from the
 * options the commands parse, so that it offers exactly what they take.
 */

/** The script for commands given by name with their parseArgs options. */
export function completionScript(commands: Record<string, Record<string, unknown>>): string {
  const cases = Object.entries(commands).map(([command, options]) => `    ${command}) opts="${Object.keys(options).map((o) => `--${o}`).join(' ')}" ;;`);
  return `# bash completion for binlog: source <(binlog completion)
_binlog() {
  local cur=\${COMP_WORDS[COMP_CWORD]} opts
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "${[...Object.keys(commands), 'completion', '--help', '--version'].join(' ')}" -- "$cur"))
    return
  fi
  case "\${COMP_WORDS[1]}" in
${cases.join('\n')}
    *) return ;;
  esac
  if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "$opts" -- "$cur")); else COMPREPLY=($(compgen -f -- "$cur")); fi
}
complete -o filenames -F _binlog binlog
`;
}

/**
 * `binlog completion`: a bash completion script of the commands, each command's flags and the words the
 * flags that take a few words take, read from the options the commands parse, so that it offers exactly
 * what they take.
 */

/**
 * The script for commands given by name with their parseArgs options, and `words`: the values of the
 * options that take one of a few words. Bash splits `--format=js` at the `=` by default (COMP_WORDBREAKS):
 * the value is then a word of its own after a `=`, or the `=` itself; without that split it is one word.
 */
export function completionScript(
  commands: Record<string, Record<string, unknown>>,
  words: Readonly<Record<string, readonly string[]>>,
): string {
  const cases = Object.entries(commands).map(
    ([command, options]) =>
      `    ${command}) opts="${Object.keys(options)
        .map((o) => `--${o}`)
        .join(' ')}" ;;`,
  );
  const values = Object.entries(words).map(([option, list]) => `    --${option}) vals="${list.join(' ')}" ;;`);
  return `# bash completion for binlog: source <(binlog completion)
_binlog_offer() {
  # The words option $1 takes that begin with $2, each after $3; file names for the options that take no words.
  local vals
  case "$1" in
${values.join('\n')}
    *) vals= ;;
  esac
  if [ -n "$vals" ]; then COMPREPLY=($(compgen -P "$3" -W "$vals" -- "$2"))
  else COMPREPLY=($(compgen -P "$3" -f -- "$2")); fi
}
_binlog() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]} opts
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "${[...Object.keys(commands), 'completion', '--help', '--version'].join(' ')}" -- "$cur"))
    return
  fi
  case "\${COMP_WORDS[1]}" in
${cases.join('\n')}
    *) return ;;
  esac
  if [[ $cur == --*=* ]]; then _binlog_offer "\${cur%%=*}" "\${cur#*=}" "\${cur%%=*}="
  elif [[ $cur == = ]]; then _binlog_offer "$prev" "" ""
  elif [[ $prev == = ]]; then _binlog_offer "\${COMP_WORDS[COMP_CWORD-2]}" "$cur" ""
  elif [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "$opts" -- "$cur")); else COMPREPLY=($(compgen -f -- "$cur")); fi
}
complete -o filenames -F _binlog binlog
`;
}

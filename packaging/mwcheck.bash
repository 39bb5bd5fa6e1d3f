# bash completion for mwcheck. The candidates come from the program itself
# (mwcheck __complete): verbs, options, profiles, knobs and alternatives,
# mutants and devices are the very tables it parses its arguments with.
_mwcheck() {
  # The words as the program sees them: bash would also split at = and :,
  # which profiles (rxe+remote_range=window) and backends (mutant:NAME) hold.
  local line=${COMP_LINE:0:COMP_POINT} words=() cword cur keep got f files=0
  read -ra words <<<"$line"
  cword=${#words[@]}
  if [[ -n $line && $line != *[[:space:]] ]]; then cword=$((cword - 1)); fi
  cur=${words[cword]:-}
  # Readline replaces only what follows the word's last = or :.
  keep=""
  if [[ $cur == *[=:]* ]]; then keep=${cur%"${cur##*[=:]}"}; fi
  COMPREPLY=()
  while IFS= read -r got; do
    if [[ $got == ":files" ]]; then
      files=1
    elif [[ -n $got ]]; then
      COMPREPLY+=("${got#"$keep"}")
    fi
  done < <("${words[0]:-mwcheck}" __complete "$cword" "${words[@]}" 2>/dev/null)
  if ((files)); then
    while IFS= read -r f; do COMPREPLY+=("${f#"$keep"}"); done < <(compgen -f -- "$cur")
    compopt -o filenames 2>/dev/null
  fi
  # A knob or a backend kind is completed further: no space after it.
  for got in "${COMPREPLY[@]}"; do
    if [[ $got == *[=:+] ]]; then
      compopt -o nospace 2>/dev/null
      break
    fi
  done
  return 0
}
complete -F _mwcheck mwcheck

package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/pflag"
)

func init() {
	registerCommand(&command{
		name:    "completion",
		summary: "print a shell completion script: completion bash|zsh|fish",
		usage:   "completion bash|zsh|fish",
		args:    []string{"bash", "zsh", "fish"},
		flags:   func(*pflag.FlagSet) {},
		about: `Load it for this shell, or install it where the shell looks:
  bash:  source <(notesoup completion bash)
         notesoup completion bash > ~/.local/share/bash-completion/completions/notesoup
  zsh:   notesoup completion zsh > "${fpath[1]}/_notesoup"   (then compinit)
  fish:  notesoup completion fish > ~/.config/fish/completions/notesoup.fish

The scripts are generated from the same command table as the help, so they
complete exactly the commands and flags this notesoup has.
`,
		run: runCompletion,
	})
}

func runCompletion(args []string, stdout, stderr io.Writer) int {
	c := commands["completion"]
	inv := newInvocation(c, args, stdout, stderr)
	fs := newFlags("completion")
	pos, code, ok := inv.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return inv.usageErr("name one shell: bash, zsh or fish")
	}
	t := completionTable()
	switch pos[0] {
	case "bash":
		io.WriteString(stdout, t.bash())
	case "zsh":
		io.WriteString(stdout, t.zsh())
	case "fish":
		io.WriteString(stdout, t.fish())
	default:
		return inv.usageErr("no completion for %q%s; the shells are bash, zsh and fish", pos[0], didYouMean(pos[0], c.args))
	}
	return exitOK
}

// valuesAnnotation names, on a flag, the words its value may be (set with
// fs.SetAnnotation); the completion offers them.
const valuesAnnotation = "notesoup_values"

// complNode is one command path as the completion scripts see it.
type complNode struct {
	path    string   // "" for notesoup itself, "history list"
	words   []string // subcommands, or the first argument's words
	summary map[string]string
	flags   []complFlag
}

// complFlag is one flag of a command path.
type complFlag struct {
	name   string // without dashes
	short  string
	usage  string
	value  bool     // takes a value
	values []string // the value's words, if a fixed set
	kind   string   // "file" or "dir" when the value names one, from its placeholder
}

// completionTable walks the command table: every visible command path with
// its words and flags.
func completionTable() nodes {
	root := complNode{summary: map[string]string{}}
	for _, n := range visibleNames(nil) {
		root.words = append(root.words, n)
		root.summary[n] = commands[n].summary
	}
	root.words = append(root.words, "help")
	root.summary["help"] = "show the help of a command"
	nodes := []complNode{root}
	help := complNode{path: "help", summary: root.summary, words: visibleNames(nil)}
	nodes = append(nodes, help)
	var walk func(c *command)
	walk = func(c *command) {
		n := complNode{path: c.path(), summary: map[string]string{}, words: c.args}
		for _, s := range c.subs {
			n.words = append(n.words, s.name)
			n.summary[s.name] = s.summary
		}
		if fs := c.flagSet(); fs != nil {
			fs.VisitAll(func(f *pflag.Flag) { n.flags = append(n.flags, complFlagOf(f)) })
		}
		n.flags = append(n.flags, complFlag{name: "help", short: "h", usage: "show this help"})
		sort.Slice(n.flags, func(i, j int) bool { return n.flags[i].name < n.flags[j].name })
		nodes = append(nodes, n)
		for _, s := range c.subs {
			walk(s)
		}
	}
	for _, name := range visibleNames(nil) {
		walk(commands[name])
	}
	return nodes
}

func complFlagOf(f *pflag.Flag) complFlag {
	placeholder, usage := pflag.UnquoteUsage(f)
	cf := complFlag{name: f.Name, short: f.Shorthand, usage: usage, value: f.NoOptDefVal == ""}
	cf.values = f.Annotations[valuesAnnotation]
	switch {
	case strings.Contains(placeholder, "DIR"):
		cf.kind = "dir"
	case strings.Contains(placeholder, "FILE"):
		cf.kind = "file"
	}
	return cf
}

// shellWord quotes s for a single-quoted shell string (bash, zsh and fish
// all take '…' with ' written as '\”).
func shellWord(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// fishWord quotes s for fish, where a backslash inside '…' escapes only '
// and \.
func fishWord(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
}

// dataFunctions writes the POSIX-shell functions bash and zsh share: the
// words, flags and value-taking flags of each command path.
func dataFunctions(b *strings.Builder, nodes []complNode) {
	b.WriteString("__notesoup_words() {\n  case \"$1\" in\n")
	for _, n := range nodes {
		if len(n.words) > 0 {
			fmt.Fprintf(b, "    %s) echo %s ;;\n", shellWord(n.path), shellWord(strings.Join(n.words, " ")))
		}
	}
	b.WriteString("  esac\n}\n__notesoup_flags() {\n  case \"$1\" in\n")
	for _, n := range nodes {
		var fl []string
		for _, f := range n.flags {
			fl = append(fl, "--"+f.name)
		}
		if len(fl) > 0 {
			fmt.Fprintf(b, "    %s) echo %s ;;\n", shellWord(n.path), shellWord(strings.Join(fl, " ")))
		}
	}
	b.WriteString("  esac\n}\n__notesoup_valueflags() {\n  case \"$1\" in\n")
	for _, n := range nodes {
		var fl []string
		for _, f := range n.flags {
			if f.value {
				fl = append(fl, "--"+f.name)
			}
		}
		if len(fl) > 0 {
			fmt.Fprintf(b, "    %s) echo %s ;;\n", shellWord(n.path), shellWord(strings.Join(fl, " ")))
		}
	}
	b.WriteString("  esac\n}\n# __notesoup_values PATH FLAG: the words of FLAG's value, or __file / __dir.\n__notesoup_values() {\n  case \"$1 $2\" in\n")
	for _, n := range nodes {
		for _, f := range n.flags {
			key := shellWord(strings.TrimSpace(n.path + " --" + f.name))
			if n.path == "" {
				key = shellWord(" --" + f.name)
			}
			switch {
			case len(f.values) > 0:
				fmt.Fprintf(b, "    %s) echo %s ;;\n", key, shellWord(strings.Join(f.values, " ")))
			case f.kind != "":
				fmt.Fprintf(b, "    %s) echo __%s ;;\n", key, f.kind)
			}
		}
	}
	b.WriteString("  esac\n}\n")
}

// scanFunction is the shell code (bash and zsh alike) that reads the words
// typed so far into cmdpath (the command path) and skip (1 when the word
// being completed is a flag's value); $1.. are the words before it.
const scanFunction = `__notesoup_scan() {
  cmdpath="" skip=0 prev=""
  local w
  for w in "$@"; do
    if [ "$skip" = 1 ]; then skip=0; prev=""; continue; fi
    case "$w" in
      --*=*) ;;
      -*) case " $(__notesoup_valueflags "$cmdpath") " in *" $w "*) skip=1; prev="$w" ;; esac ;;
      *) case " $(__notesoup_words "$cmdpath") " in
           *" $w "*) if [ -z "$cmdpath" ]; then cmdpath="$w"; else cmdpath="$cmdpath $w"; fi ;;
         esac ;;
    esac
  done
}
`

// nodes is the completion table, with a script generator per shell.
type nodes []complNode

func (ns nodes) bash() string {
	var b strings.Builder
	b.WriteString("# bash completion for notesoup (generated by `notesoup completion bash`)\n")
	dataFunctions(&b, ns)
	b.WriteString(scanFunction)
	b.WriteString(`_notesoup() {
  local cur="${COMP_WORDS[COMP_CWORD]}" cmdpath skip prev vals
  __notesoup_scan "${COMP_WORDS[@]:1:COMP_CWORD-1}"
  COMPREPLY=()
  if [ "$skip" = 1 ]; then
    vals=$(__notesoup_values "$cmdpath" "$prev")
    case "$vals" in
      __file) COMPREPLY=($(compgen -f -- "$cur")) ;;
      __dir) COMPREPLY=($(compgen -d -- "$cur")) ;;
      *) COMPREPLY=($(compgen -W "$vals" -- "$cur")) ;;
    esac
    return 0
  fi
  case "$cur" in
    -*) COMPREPLY=($(compgen -W "$(__notesoup_flags "$cmdpath")" -- "$cur")) ;;
    *) COMPREPLY=($(compgen -W "$(__notesoup_words "$cmdpath")" -- "$cur")) ;;
  esac
  return 0
}
complete -o default -F _notesoup notesoup
`)
	return b.String()
}

func (ns nodes) zsh() string {
	var b strings.Builder
	b.WriteString("#compdef notesoup\n# zsh completion for notesoup (generated by `notesoup completion zsh`)\n")
	dataFunctions(&b, ns)
	b.WriteString(scanFunction)
	// Descriptions of the words, per path, for _describe.
	b.WriteString("__notesoup_described() {\n  case \"$1\" in\n")
	for _, n := range ns {
		if len(n.summary) == 0 {
			continue
		}
		var items []string
		for _, w := range n.words {
			items = append(items, shellWord(strings.ReplaceAll(w, ":", `\:`)+":"+n.summary[w]))
		}
		fmt.Fprintf(&b, "    %s) reply=(%s) ;;\n", shellWord(n.path), strings.Join(items, " "))
	}
	b.WriteString(`    *) reply=() ;;
  esac
}
_notesoup() {
  local cur="${words[CURRENT]}" cmdpath skip prev vals
  local -a reply
  __notesoup_scan "${(@)words[2,CURRENT-1]}"
  if [[ $skip == 1 ]]; then
    vals=$(__notesoup_values "$cmdpath" "$prev")
    case "$vals" in
      __file) _files ;;
      __dir) _files -/ ;;
      *) compadd -- ${=vals} ;;
    esac
    return
  fi
  if [[ $cur == -* ]]; then
    compadd -- ${=$(__notesoup_flags "$cmdpath")}
    return
  fi
  __notesoup_described "$cmdpath"
  if (( ${#reply} )); then
    _describe -t commands 'notesoup command' reply
  else
    compadd -- ${=$(__notesoup_words "$cmdpath")}
  fi
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
  _notesoup "$@"
else
  compdef _notesoup notesoup
fi
`)
	return b.String()
}

func (ns nodes) fish() string {
	var b strings.Builder
	b.WriteString("# fish completion for notesoup (generated by `notesoup completion fish`)\n")
	b.WriteString("function __notesoup_words\n    switch $argv[1]\n")
	for _, n := range ns {
		if len(n.words) > 0 {
			fmt.Fprintf(&b, "        case %s\n            printf '%%s\\n' %s\n", fishWord(n.path), fishWords(n.words))
		}
	}
	b.WriteString("    end\nend\nfunction __notesoup_valueflags\n    switch $argv[1]\n")
	for _, n := range ns {
		var fl []string
		for _, f := range n.flags {
			if f.value {
				fl = append(fl, "--"+f.name)
			}
		}
		if len(fl) > 0 {
			fmt.Fprintf(&b, "        case %s\n            printf '%%s\\n' %s\n", fishWord(n.path), fishWords(fl))
		}
	}
	b.WriteString(`    end
end
function __notesoup_path
    set -l toks (commandline -opc)
    set -e toks[1]
    set -l p ''
    set -l skip 0
    for w in $toks
        if test $skip -eq 1
            set skip 0
            continue
        end
        switch $w
            case '--*=*'
            case '-*'
                if contains -- $w (__notesoup_valueflags $p)
                    set skip 1
                end
            case '*'
                if contains -- $w (__notesoup_words $p)
                    if test -z "$p"
                        set p $w
                    else
                        set p "$p $w"
                    end
                end
        end
    end
    echo $p
end
function __notesoup_at
    set -l p (__notesoup_path)
    test "$p" = "$argv[1]"
end
complete -c notesoup -f
`)
	for _, n := range ns {
		cond := fishWord("__notesoup_at " + fishWord(n.path))
		for _, w := range n.words {
			fmt.Fprintf(&b, "complete -c notesoup -n %s -a %s", cond, fishWord(w))
			if d := n.summary[w]; d != "" {
				fmt.Fprintf(&b, " -d %s", fishWord(d))
			}
			b.WriteString("\n")
		}
		for _, f := range n.flags {
			fmt.Fprintf(&b, "complete -c notesoup -n %s -l %s", cond, fishWord(f.name))
			if f.short != "" {
				fmt.Fprintf(&b, " -s %s", fishWord(f.short))
			}
			switch {
			case len(f.values) > 0:
				fmt.Fprintf(&b, " -x -a %s", fishWord(strings.Join(f.values, " ")))
			case f.kind == "file":
				b.WriteString(" -r -F")
			case f.kind == "dir":
				b.WriteString(" -x -a '(__fish_complete_directories)'")
			case f.value:
				b.WriteString(" -x")
			}
			if f.usage != "" {
				fmt.Fprintf(&b, " -d %s", fishWord(firstClause(f.usage)))
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// fishWords quotes each word for fish.
func fishWords(ws []string) string {
	q := make([]string, len(ws))
	for i, w := range ws {
		q[i] = fishWord(w)
	}
	return strings.Join(q, " ")
}

// firstClause shortens a flag's usage for a completion menu: up to the
// first " (" or ";".
func firstClause(s string) string {
	if i := strings.IndexAny(s, "(;"); i > 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// The man page and the bash, zsh and fish completion scripts, generated from the command model: every command and
// nested subcommand, with its arguments and options, as the parser and `--help` see them.
import AssistantHost
import Foundation

/// The command model as the generators walk it.
private struct GeneratedModel {
  struct Command {
    var path: [String]
    var configuration: CommandConfiguration
  }

  /// Every command, the root first (path `[]`), then depth first in declaration order.
  var commands: [Command]
  /// Each option name that takes a value, with what its value completes to: the first declaration of the name, as
  /// the parser takes it while the command is not known yet (`CommandLineParser.anyOption`).
  var valueOptions: [(name: String, completion: Completion)]

  init(root: any AssistantCommand.Type) {
    commands = CommandLineParser.commands(under: root).map {
      Command(path: $0.path, configuration: $0.type.configuration)
    }
    var seen: Set<String> = []
    valueOptions = []
    for command in commands {
      for option in command.configuration.allOptions {
        for name in option.names where seen.insert(name).inserted && !option.isFlag {
          valueOptions.append((name, option.completion))
        }
      }
    }
  }

  /// What a shell script completes for `completion`: `none`, `file`, `directory`, `apps` or `words:WORD...`.
  static func kind(_ completion: Completion) -> String {
    switch completion {
    case .none: "none"
    case .file: "file"
    case .directory: "directory"
    case .apps: "apps"
    case .words(let words): "words:" + words.joined(separator: " ")
    }
  }

  /// The first clause of `text` (up to a sentence's end, a `;` or a parenthesis, from the 10th character on), on
  /// one line, at most 80 characters: a completion menu's description.
  static func summary(_ text: String) -> String {
    let characters = Array(text.map { $0.isNewline ? " " : $0 })
    var end = characters.count
    if characters.count > 11 {
      for index in 10..<(characters.count - 1) {
        let (this, next) = (characters[index], characters[index + 1])
        let abbreviation = this == "." && index >= 3 && characters[(index - 3)..<index].contains(".")  // e.g. i.e.
        if ((this == "." && !abbreviation) || this == ";") && next == " " || (this == " " && next == "(") {
          end = index
          break
        }
      }
    }
    var line = String(characters[..<end])
    while line.hasSuffix(".") { line.removeLast() }
    guard line.count > 80 else { return line }
    let cut = line.prefix(79)
    return String(cut[..<(cut.lastIndex(of: " ") ?? cut.endIndex)]) + "…"
  }
}

// MARK: - The man page

/// `assistant(1)`, a man(7) page generated from the command model.
enum ManualPage {
  /// The page's roff source. It depends only on the model and `hostVersion`, never on the date.
  static func roff(root: any AssistantCommand.Type) -> String {
    let model = GeneratedModel(root: root)
    let rootConfiguration = root.configuration
    var page = Page()
    page.request(".TH ASSISTANT 1 \(quoted("version \(hostVersion)")) \"IntentHost\" \"IntentHost Manual\"")
    page.request(".nh")
    page.request(".ad l")

    page.section("NAME")
    page.text("assistant \\- " + escape(rootConfiguration.abstract))

    page.section("SYNOPSIS")
    page.request(".nf")
    for command in model.commands where command.path.isEmpty || command.configuration.subcommands.isEmpty {
      for line in HelpText.usageLines(command.path, command.configuration) { page.text(usage(line, command.path)) }
    }
    page.request(".fi")

    page.section("DESCRIPTION")
    page.paragraphs(rootConfiguration.abstract)
    page.paragraphs(rootConfiguration.discussion)

    page.section("COMMANDS")
    page.paragraphs(
      "Every command also takes the common options (see OPTIONS): "
        + standardOptions.flatMap(\.names).map { "`\($0)`" }.joined(separator: ", ") + ".")
    for command in model.commands where !command.path.isEmpty {
      page.command(command)
    }

    page.section("OPTIONS")
    if !rootConfiguration.options.isEmpty {
      page.paragraphs("An utterance (`assistant \"UTTERANCE\"`) takes:")
      for option in rootConfiguration.options { page.option(option) }
    }
    page.paragraphs("Every command takes:")
    for option in standardOptions { page.option(option) }

    page.section("EXIT STATUS")
    for row in exitStatusTable { page.item("\\fB" + escape(row.status) + "\\fR", row.meaning) }
    page.paragraphs("`open` exits with the app's own status.")

    page.section("ENVIRONMENT")
    for (name, meaning) in environment { page.item("\\fB" + escape(name) + "\\fR", meaning) }

    page.section("FILES")
    page.paragraphs(
      "The host home is `--home DIR`, else $ASSISTANT_HOME, else $XDG_DATA_HOME/intenthost, else "
        + "~/.local/share/intenthost. In it:")
    for (path, meaning) in files { page.item("\\fI" + escape(path) + "\\fR", meaning) }

    page.section("EXAMPLES")
    var shown: Set<String> = []
    for command in model.commands {
      let examples = command.configuration.examples.filter { shown.insert($0).inserted }
      guard !examples.isEmpty else { continue }
      page.request(".PP")
      page.text(
        command.path.isEmpty
          ? "Say something:" : "\\fB" + escape((["assistant"] + command.path).joined(separator: " ")) + "\\fR:")
      page.request(".RS 4")
      page.request(".nf")
      for example in examples { page.text(escape(example)) }
      page.request(".fi")
      page.request(".RE")
    }

    page.section("SEE ALSO")
    page.paragraphs(
      "`assistant help COMMAND` (the same text as `assistant COMMAND --help`); `assistant help COMMAND --json` (a "
        + "command's model, for tools); `assistant completions bash|zsh|fish` (completion scripts). In the IntentHost "
        + "repository: README.md, docs/VALIDATION.md (every manifest rule), docs/SANDBOX.md (the sandbox and its "
        + "threat model), docs/PROTOCOL.md (the extension protocol).")
    return page.lines.joined(separator: "\n") + "\n"
  }

  /// The variables the host reads.
  static let environment: [(String, String)] = [
    ("ASSISTANT_HOME", "The host home when `--home` is not given."),
    ("ASSISTANT_APP_GROUPS", "The folder of the app-group containers (default: the home's AppGroup folder)."),
    ("XDG_DATA_HOME", "With neither `--home` nor $ASSISTANT_HOME, the home is $XDG_DATA_HOME/intenthost."),
    ("HOME", "With none of the above, the home is ~/.local/share/intenthost."),
  ]

  /// The home's layout (README, "Where things live").
  static let files: [(String, String)] = [
    ("HOME/Applications/NAME.app/", "Installed bundles (BUNDLE-ID.app when another app has the folder name)."),
    ("HOME/Containers/BUNDLE-ID/", "Each bundle's private container (Documents, Library, tmp)."),
    ("HOME/Logs/BUNDLE-ID.log", "The stderr of each launch, and the host's fault lines."),
    ("HOME/Logs/BUNDLE-ID.log.1", "The log before the last rotation."),
    ("HOME/AppGroup/GROUP-ID/", "App-group containers, unless $ASSISTANT_APP_GROUPS names another folder."),
    ("HOME/State/owners.json", "Which team owns each bundle id and app group."),
    ("HOME/State/identities.json", "The uid of each app and the gid of each group (when the host runs as root)."),
    ("HOME/State/interpreters.json", "The interpreter recorded at install for each #! script bundle."),
  ]

  /// A page being written: requests and text lines.
  private struct Page {
    var lines: [String] = []

    /// A request (`.SH`, `.TP`...), written as is.
    mutating func request(_ line: String) { lines.append(line) }

    /// A line of text, already escaped: protected from being read as a request.
    mutating func text(_ line: String) {
      lines.append(line.hasPrefix(".") || line.hasPrefix("'") ? "\\&" + line : line)
    }

    mutating func section(_ name: String) { request(".SH " + quoted(name)) }

    /// Each paragraph of `source` (separated by line breaks), `code` in backticks shown bold.
    mutating func paragraphs(_ source: String) {
      for paragraph in source.split(separator: "\n") {
        let trimmed = paragraph.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { continue }
        request(".PP")
        text(inline(trimmed))
      }
    }

    /// A tagged paragraph: `tag` (roff already) and its text.
    mutating func item(_ tag: String, _ body: String) {
      request(".TP")
      text(tag)
      text(inline(body.trimmingCharacters(in: .whitespaces)))
    }

    mutating func option(_ option: Option) {
      let names = option.names.map { "\\fB" + escape($0) + "\\fR" }.joined(separator: ", ")
      item(names + (option.value.map { " \\fI" + escape($0) + "\\fR" } ?? ""), option.help)
    }

    /// A command's section: usage, abstract, discussion, subcommands, arguments and options.
    mutating func command(_ command: GeneratedModel.Command) {
      let configuration = command.configuration
      request(".SS " + quoted((["assistant"] + command.path).joined(separator: " ")))
      request(".nf")
      for line in HelpText.usageLines(command.path, configuration) { text(usage(line, command.path)) }
      request(".fi")
      paragraphs(configuration.abstract)
      paragraphs(configuration.discussion)
      if !configuration.subcommands.isEmpty {
        paragraphs(
          "Commands: " + configuration.subcommands.map { "`\($0.configuration.name)`" }.joined(separator: ", ")
            + " (each below).")
      }
      if !configuration.arguments.isEmpty {
        paragraphs("Arguments:")
        request(".RS 4")
        for argument in configuration.arguments { item("\\fI" + escape(argument.name) + "\\fR", argument.help) }
        request(".RE")
      }
      if !configuration.options.isEmpty {
        paragraphs("Options:")
        request(".RS 4")
        for option in configuration.options { self.option(option) }
        request(".RE")
      }
    }
  }

  /// A usage line with the command's name bold.
  private static func usage(_ line: String, _ path: [String]) -> String {
    let name = (["assistant"] + path).joined(separator: " ")
    guard line.hasPrefix(name) else { return escape(line) }
    return "\\fB" + escape(name) + "\\fR" + escape(String(line.dropFirst(name.count)))
  }

  /// `text` with each `code` span (between backticks) bold, escaped for roff.
  static func inline(_ text: String) -> String {
    let spans = text.split(separator: "`", omittingEmptySubsequences: false)
    var out = ""
    for (index, span) in spans.enumerated() {
      if index % 2 == 0 {
        out += escape(span)
      } else if index < spans.count - 1 {
        out += "\\fB" + escape(span) + "\\fR"
      } else {
        out += escape("`" + span)  // an unmatched backtick stays as it is
      }
    }
    return out
  }

  /// `text` for a roff text line: a backslash as `\e`, every hyphen as `\-` (a minus, so option names copy and
  /// search as typed), anything outside ASCII as `\[uXXXX]` (no input encoding assumed), controls as spaces.
  static func escape<S: StringProtocol>(_ text: S) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\\": out += "\\e"
      case "-": out += "\\-"
      case _ where scalar.value < 0x20 || scalar.value == 0x7F: out += " "
      case _ where scalar.isASCII: out.unicodeScalars.append(scalar)
      default:
        let hex = String(scalar.value, radix: 16, uppercase: true)
        out += "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
      }
    }
    return out
  }

  /// `text` as one argument of a request: escaped, in double quotes (a quote inside as `\(dq`).
  static func quoted(_ text: String) -> String {
    "\"" + escape(text).replacingOccurrences(of: "\"", with: "\\(dq") + "\""
  }
}

// MARK: - Completion scripts

/// Shell completion scripts for `assistant`, generated from the command model: subcommands (nested), the options of
/// the command being completed (anywhere on the line), option values and positional arguments by their
/// `Completion`, app names from `assistant list --names` (with the line's `--home`), and files after `--`.
enum CompletionScript {
  /// The bash script: `_assistant`, registered with `complete -F`.
  static func bash(root: any AssistantCommand.Type) -> String {
    let model = GeneratedModel(root: root)
    var cases: [String] = []
    for command in model.commands {
      let configuration = command.configuration
      let arguments = configuration.arguments.map { shellQuoted(GeneratedModel.kind($0.completion)) }
      cases.append(
        """
            \(shellQuoted(command.path.joined(separator: " "))))
              subcommands=(\(configuration.subcommands.map { shellQuoted($0.configuration.name) }.joined(separator: " ")))
              options=(\(configuration.allOptions.flatMap(\.names).map(shellQuoted).joined(separator: " ")))
              arguments=(\(arguments.joined(separator: " ")))
              repeating=\(configuration.arguments.last?.isRepeating == true ? 1 : 0)
              ;;
        """)
    }
    let kinds = model.valueOptions.map {
      "    \(shellQuoted($0.name))) kind=\(shellQuoted(GeneratedModel.kind($0.completion))) ;;"
    }
    return #"""
      # bash completion for assistant(1), generated from its command model by `assistant completions bash`
      # (IntentHost \#(hostVersion)): subcommands, each command's options, option values and arguments.
      # Install: Scripts/install puts it in PREFIX/share/bash-completion/completions/assistant; or add
      #   source <(assistant completions bash)
      # to ~/.bashrc.

      # Sets `subcommands`, `options`, `arguments` (what each positional argument completes to) and `repeating` (1:
      # the last argument takes the rest) for the command at the path $1.
      _assistant_model() {
        subcommands=()
        options=()
        arguments=()
        repeating=0
        case $1 in
      \#(cases.joined(separator: "\n"))
        esac
      }

      # Sets `kind`, what the value of option $1 completes to; `flag` when it takes none.
      _assistant_option_kind() {
        case $1 in
      \#(kinds.joined(separator: "\n"))
          *) kind=flag ;;
        esac
      }

      # Whether $1 is an option, as the parser decides: -X..., but not - alone or a negative number.
      _assistant_is_option() {
        [[ $1 == -?* && $1 != -[0-9.]* ]]
      }

      # Whether $1 is a subcommand of the command `_assistant_model` described.
      _assistant_is_subcommand() {
        local name
        for name in "${subcommands[@]}"; do
          [[ $name == "$1" ]] && return 0
        done
        return 1
      }

      # Adds to COMPREPLY, after the prefix $2, each of the further words that starts with $1.
      _assistant_add_matching() {
        local cur=$1 prefix=$2 word
        shift 2
        for word; do
          if [[ $word == "$cur"* ]]; then COMPREPLY+=("$prefix$word"); fi
        done
        return 0
      }

      # Completes $2 (after the prefix $3) as kind $1: file, directory, apps, words:WORD... or none.
      _assistant_complete_value() {
        local kind=$1 cur=$2 prefix=$3 line quoted
        local -a found=() home_option=()
        case $kind in
          file | directory)
            compopt -o filenames 2>/dev/null
            if [[ $kind == file ]]; then
              mapfile -t found < <(compgen -f -- "$cur")
            else
              mapfile -t found < <(compgen -d -- "$cur")
            fi
            for line in "${found[@]}"; do COMPREPLY+=("$prefix$line"); done
            ;;
          apps)
            if [[ -n $home ]]; then home_option=(--home "$home"); fi
            while IFS= read -r line; do
              printf -v quoted '%q' "$line"
              if [[ $line == "$cur"* || $quoted == "$cur"* ]]; then COMPREPLY+=("$prefix$quoted"); fi
            done < <("$program" "${home_option[@]}" list --names 2>/dev/null)
            ;;
          words:*)
            read -r -a found <<<"${kind#words:}"
            _assistant_add_matching "$cur" "$prefix" "${found[@]}"
            if [[ ${#COMPREPLY[@]} == 1 && ${COMPREPLY[0]} == *= ]]; then compopt -o nospace 2>/dev/null; fi
            ;;
        esac
        return 0
      }

      # Completes COMP_WORDS[COMP_CWORD] into COMPREPLY.
      _assistant() {
        COMPREPLY=()
        local cur=${COMP_WORDS[COMP_CWORD]} program=${COMP_WORDS[0]} cmdpath='' home='' pending='' value_of=''
        local word kind i dashdash=0 positional=0 joined=0 repeating=0
        local -a words=() subcommands=() options=() arguments=()
        [[ $program == */* && -x $program ]] || program=assistant
        # The words before the cursor, each NAME=VALUE that bash split at `=` (COMP_WORDBREAKS) joined again.
        for ((i = 1; i < COMP_CWORD; i++)); do
          word=${COMP_WORDS[i]}
          if [[ $word == = ]] && ((${#words[@]} > 0)); then
            words[${#words[@]}-1]+==
            joined=1
          elif ((joined)); then
            words[${#words[@]}-1]+=$word
            joined=0
          else
            words+=("$word")
          fi
        done
        # The cursor in the VALUE of NAME=VALUE: NAME is the option (or the argument) the value belongs to.
        if ((joined)); then
          value_of=${words[${#words[@]}-1]%=}
        elif [[ $cur == = ]] && ((${#words[@]} > 0)); then
          value_of=${words[${#words[@]}-1]}
          cur=''
        fi
        if [[ -n $value_of ]]; then words=("${words[@]:0:${#words[@]}-1}"); fi
        # Which command, as the parser finds it: subcommand names before its first positional argument, options
        # anywhere (skipping the values of those that take one), `--` ending them.
        for word in "${words[@]}"; do
          if ((dashdash)); then
            positional=$((positional + 1))
          elif [[ $word == -- ]]; then
            dashdash=1
          elif [[ -n $pending ]]; then
            if [[ $pending == --home ]]; then home=$word; fi
            pending=''
          elif _assistant_is_option "$word"; then
            if [[ $word == --home=* ]]; then
              home=${word#--home=}
            elif [[ $word != *=* ]]; then
              _assistant_option_kind "$word"
              if [[ $kind != flag ]]; then pending=$word; fi
            fi
          else
            _assistant_model "$cmdpath"
            if ((positional == 0)) && _assistant_is_subcommand "$word"; then
              cmdpath=${cmdpath:+$cmdpath }$word
            else
              positional=$((positional + 1))
            fi
          fi
        done
        if [[ $home == '~/'* ]]; then home=$HOME/${home#'~/'}; fi
        _assistant_model "$cmdpath"
        if ((dashdash)); then
          _assistant_complete_value file "$cur" ''
        elif [[ -n $pending && -n $value_of ]]; then
          : # after the `=` inside an option's value (--deadline resolve=): nothing to offer
        elif [[ -n $pending ]]; then
          _assistant_option_kind "$pending"
          _assistant_complete_value "$kind" "$cur" ''
        elif [[ -n $value_of ]] && _assistant_is_option "$value_of"; then
          _assistant_option_kind "$value_of"
          _assistant_complete_value "$kind" "$cur" ''
        elif [[ -z $value_of && $cur == -?*=* ]] && _assistant_is_option "$cur"; then
          _assistant_option_kind "${cur%%=*}"
          _assistant_complete_value "$kind" "${cur#*=}" "${cur%%=*}="
        elif [[ -z $value_of ]] && { [[ $cur == - ]] || _assistant_is_option "$cur"; }; then
          _assistant_add_matching "$cur" '' "${options[@]}"
        elif ((positional == 0 && ${#subcommands[@]} > 0)); then
          _assistant_add_matching "$cur" '' "${subcommands[@]}"
        else
          kind=none
          if ((positional < ${#arguments[@]})); then
            kind=${arguments[positional]}
          elif ((repeating && ${#arguments[@]} > 0)); then
            kind=${arguments[${#arguments[@]}-1]}
          fi
          _assistant_complete_value "$kind" "$cur" ''
        fi
        return 0
      }

      complete -F _assistant assistant

      """#
  }

  /// The zsh script: `_assistant`, for a folder of `$fpath` (`#compdef`) or to be sourced after `compinit`.
  static func zsh(root: any AssistantCommand.Type) -> String {
    let model = GeneratedModel(root: root)
    var cases: [String] = []
    for command in model.commands {
      let configuration = command.configuration
      let subcommands = configuration.subcommands.map {
        shellQuoted(describedName($0.configuration.name, $0.configuration.abstract))
      }
      let options = configuration.allOptions.flatMap { option in
        option.names.map { shellQuoted(describedName($0, option.help)) }
      }
      let arguments = configuration.arguments.map { shellQuoted(GeneratedModel.kind($0.completion)) }
      cases.append(
        """
            (\(shellQuoted(command.path.joined(separator: " "))))
              subs=(\(subcommands.joined(separator: " ")))
              opts=(\(options.joined(separator: " ")))
              kinds=(\(arguments.joined(separator: " ")))
              repeating=\(configuration.arguments.last?.isRepeating == true ? 1 : 0)
              ;;
        """)
    }
    let kinds = model.valueOptions.map {
      "    (\(shellQuoted($0.name))) REPLY=\(shellQuoted(GeneratedModel.kind($0.completion))) ;;"
    }
    return #"""
      #compdef assistant
      # zsh completion for assistant(1), generated from its command model by `assistant completions zsh`
      # (IntentHost \#(hostVersion)): subcommands, each command's options, option values and arguments.
      # Install: Scripts/install puts it in PREFIX/share/zsh/site-functions/_assistant (a folder of $fpath, before
      # compinit runs); or, after compinit:
      #   source <(assistant completions zsh)

      # Sets `subs` and `opts` (NAME:DESCRIPTION), `kinds` (what each positional argument completes to) and
      # `repeating` (1: the last argument takes the rest) for the command at the path $1.
      _assistant_model() {
        subs=()
        opts=()
        kinds=()
        repeating=0
        case $1 in
      \#(cases.joined(separator: "\n"))
        esac
      }

      # Sets REPLY, what the value of option $1 completes to; `flag` when it takes none.
      _assistant_option_kind() {
        case $1 in
      \#(kinds.joined(separator: "\n"))
          (*) REPLY=flag ;;
        esac
      }

      # Whether $1 is an option, as the parser decides: -X..., but not - alone or a negative number.
      _assistant_is_option() {
        [[ $1 == -?* && $1 != -[0-9.]* ]]
      }

      # Completes the current word as kind $1: file, directory, apps, words:WORD... or none.
      _assistant_complete_value() {
        local -a found home_option
        case $1 in
          (file) _files ;;
          (directory) _files -/ ;;
          (apps)
            [[ -n $home ]] && home_option=(--home $home)
            found=(${(f)"$($program $home_option list --names 2>/dev/null)"})
            compadd -a found
            ;;
          (words:*)
            found=(${=${1#words:}})
            compadd -S '' -- ${(M)found:#*=}
            compadd -- ${found:#*=}
            ;;
          (*) return 1 ;;
        esac
      }

      _assistant() {
        local cmdpath='' home='' pending='' word kind REPLY program=${words[1]}
        local -i dashdash=0 positional=0 repeating=0 i
        local -a subs opts kinds names
        [[ $program == */* && -x $program ]] || program=assistant
        # Which command, as the parser finds it: subcommand names before its first positional argument, options
        # anywhere (skipping the values of those that take one), `--` ending them.
        for ((i = 2; i < CURRENT; i++)); do
          word=${(Q)words[i]}
          if (( dashdash )); then
            positional+=1
          elif [[ $word == -- ]]; then
            dashdash=1
          elif [[ -n $pending ]]; then
            [[ $pending == --home ]] && home=$word
            pending=''
          elif _assistant_is_option $word; then
            if [[ $word == --home=* ]]; then
              home=${word#--home=}
            elif [[ $word != *=* ]]; then
              _assistant_option_kind $word
              [[ $REPLY == flag ]] || pending=$word
            fi
          else
            _assistant_model $cmdpath
            names=(${subs%%:*})
            if (( positional == 0 && ${names[(Ie)$word]} )); then
              cmdpath=${cmdpath:+$cmdpath }$word
            else
              positional+=1
            fi
          fi
        done
        [[ $home == '~/'* ]] && home=$HOME/${home#'~/'}
        _assistant_model $cmdpath
        if (( dashdash )); then
          _files
        elif [[ -n $pending ]]; then
          _assistant_option_kind $pending
          _assistant_complete_value $REPLY
        elif [[ $PREFIX == -?*=* ]] && _assistant_is_option ${PREFIX%%=*}; then
          _assistant_option_kind ${PREFIX%%=*}
          [[ $REPLY == flag ]] && return 1
          compset -P 1 '*='
          _assistant_complete_value $REPLY
        elif [[ $PREFIX == - ]] || _assistant_is_option $PREFIX; then
          _describe -t options option opts
        elif (( positional == 0 && ${#subs} )); then
          _describe -t commands command subs
        else
          kind=none
          if (( positional < ${#kinds} )); then
            kind=${kinds[positional + 1]}
          elif (( repeating && ${#kinds} )); then
            kind=${kinds[-1]}
          fi
          _assistant_complete_value $kind
        fi
      }

      if [[ $funcstack[1] == _assistant ]]; then
        _assistant "$@"
      else
        compdef _assistant assistant
      fi

      """#
  }

  /// The fish script: a `complete` line per subcommand, option and argument, each conditioned on the command being
  /// completed (found from the line as the parser finds it).
  static func fish(root: any AssistantCommand.Type) -> String {
    let model = GeneratedModel(root: root)
    var subcommandCases: [String] = []
    var lines: [String] = []
    for command in model.commands {
      let configuration = command.configuration
      let path = command.path.joined(separator: " ")
      let condition = { (function: String) in fishQuoted(([function] + command.path).joined(separator: " ")) }
      if !configuration.subcommands.isEmpty {
        subcommandCases.append("        case \(fishQuoted(path))")
        subcommandCases.append(
          "            printf '%s\\n' "
            + configuration.subcommands.map { fishQuoted($0.configuration.name) }.joined(separator: " "))
      }
      for sub in configuration.subcommands {
        lines.append(
          "complete -c assistant -n \(condition("__assistant_subcommand_of")) -a \(fishQuoted(sub.configuration.name))"
            + " -d \(fishQuoted(GeneratedModel.summary(sub.configuration.abstract)))")
      }
      for option in configuration.allOptions {
        var line = "complete -c assistant -n \(condition("__assistant_in"))"
        for name in option.names {
          if name.hasPrefix("--") {
            line += " -l " + fishQuoted(String(name.dropFirst(2)))
          } else if name.count == 2 {
            line += " -s " + fishQuoted(String(name.dropFirst()))
          } else {
            line += " -o " + fishQuoted(String(name.dropFirst()))
          }
        }
        if !option.isFlag { line += " " + fishValue(option.completion, requiresParameter: true) }
        lines.append(line + " -d " + fishQuoted(GeneratedModel.summary(option.help)))
      }
      for (index, argument) in configuration.arguments.enumerated() where argument.completion != .none {
        guard command.path.isEmpty || configuration.subcommands.isEmpty else { continue }
        let repeats = argument.isRepeating && index == configuration.arguments.count - 1
        lines.append(
          "complete -c assistant -n "
            + fishQuoted(
              (["__assistant_argument", "\(index)", repeats ? "1" : "0"] + command.path).joined(separator: " "))
            + " " + fishValue(argument.completion, requiresParameter: false)
            + " -d " + fishQuoted(GeneratedModel.summary(argument.help)))
      }
    }
    let valueNames = model.valueOptions.map { fishQuoted($0.name) }.joined(separator: " ")
    return #"""
      # fish completion for assistant(1), generated from its command model by `assistant completions fish`
      # (IntentHost \#(hostVersion)): subcommands, each command's options, option values and arguments.
      # Install: Scripts/install puts it in PREFIX/share/fish/vendor_completions.d/assistant.fish; or
      #   assistant completions fish > ~/.config/fish/completions/assistant.fish

      # Whether $argv[1] is an option, as the parser decides: -X..., but not - alone or a negative number.
      function __assistant_is_option
          string match -qr -- '^-[^0-9.]' $argv[1]
      end

      # Whether option $argv[1] takes a value.
      function __assistant_takes_value
          contains -- $argv[1] \#(valueNames)
      end

      # The subcommands of the command at the path $argv, one a line.
      function __assistant_subcommands
          switch "$argv"
      \#(subcommandCases.joined(separator: "\n"))
          end
      end

      # Sets __assistant_path (the command being completed, as the parser finds it), __assistant_positional (its
      # positional arguments so far), __assistant_dashdash (1 after `--`), __assistant_pending (an option waiting for
      # its value) and __assistant_home (the line's --home).
      function __assistant_parse
          set -g __assistant_path
          set -g __assistant_positional 0
          set -g __assistant_dashdash 0
          set -g __assistant_pending ''
          set -g __assistant_home ''
          set -l tokens (commandline -opc)
          set -e tokens[1]
          for word in $tokens
              if test $__assistant_dashdash = 1
                  set __assistant_positional (math $__assistant_positional + 1)
              else if test "$word" = --
                  set __assistant_dashdash 1
              else if test -n "$__assistant_pending"
                  test "$__assistant_pending" = --home; and set __assistant_home $word
                  set __assistant_pending ''
              else if __assistant_is_option $word
                  if string match -q -- '--home=*' $word
                      set __assistant_home (string replace -- '--home=' '' $word)
                  else if not string match -q -- '*=*' $word; and __assistant_takes_value $word
                      set __assistant_pending $word
                  end
              else if test $__assistant_positional = 0; and contains -- $word (__assistant_subcommands $__assistant_path)
                  set -a __assistant_path $word
              else
                  set __assistant_positional (math $__assistant_positional + 1)
              end
          end
      end

      # Whether the command being completed is the one at the path $argv, before any `--`.
      function __assistant_in
          __assistant_parse
          test $__assistant_dashdash = 0; and test "$__assistant_path" = "$argv"
      end

      # Whether a subcommand of the command at the path $argv comes next.
      function __assistant_subcommand_of
          __assistant_in $argv; and test $__assistant_positional = 0; and test -z "$__assistant_pending"
      end

      # Whether positional argument $argv[1] (counted from 0; with $argv[2] = 1, or any later one) of the command at
      # the path $argv[3..] comes next.
      function __assistant_argument
          set -l index $argv[1]
          set -l repeats $argv[2]
          set -e argv[1..2]
          __assistant_in $argv; and test -z "$__assistant_pending"; or return 1
          test $__assistant_positional = $index; or begin
              test $repeats = 1; and test $__assistant_positional -gt $index
          end
      end

      function __assistant_after_dashdash
          __assistant_parse
          test $__assistant_dashdash = 1
      end

      # The installed apps' names, from `assistant list --names` (with the line's --home).
      function __assistant_apps
          __assistant_parse
          set -l program (commandline -opc)[1]
          string match -q -- '*/*' $program; and test -x $program; or set program assistant
          set -l home_option
          test -n "$__assistant_home"; and set home_option --home $__assistant_home
          $program $home_option list --names 2>/dev/null
      end

      complete -c assistant -f
      complete -c assistant -n __assistant_after_dashdash -F
      \#(lines.joined(separator: "\n"))

      """#
  }

  /// `NAME:DESCRIPTION` for zsh's `_describe`, a colon in the name escaped.
  private static func describedName(_ name: String, _ help: String) -> String {
    name.replacingOccurrences(of: ":", with: "\\:") + ":" + GeneratedModel.summary(help)
  }

  /// The `complete` flags that complete a value of kind `completion` in fish.
  private static func fishValue(_ completion: Completion, requiresParameter: Bool) -> String {
    let exclusive = requiresParameter ? "-x " : ""
    switch completion {
    case .none: return requiresParameter ? "-x" : ""
    case .file: return requiresParameter ? "-r -F" : "-F"
    case .directory: return exclusive + "-a " + fishQuoted("(__fish_complete_directories (commandline -ct))")
    case .apps: return exclusive + "-a " + fishQuoted("(__assistant_apps)")
    case .words(let words): return exclusive + "-a " + fishQuoted(words.joined(separator: " "))
    }
  }

  /// `text` in single quotes for bash or zsh.
  static func shellQuoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }

  /// `text` in single quotes for fish (which escapes `\` and `'` inside them).
  static func fishQuoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
  }
}

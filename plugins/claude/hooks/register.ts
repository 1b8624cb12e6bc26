// The notesoup Claude Code mod: the hooks module hooks/hooks.json names. It
// registers the hooks of mod.ts; every on() names its hook directly, as
// claude plugin validate requires.
import type { Register } from 'claude-code'
import { onTools } from './toolhooks.gen'
import {
  onAppend, onCapCommand, onContinueCommand, onClassicStart, onCompact, onPromptContext, onPromptSubmit, onSessionEnd, onSessionStart,
  onStopCommand, onToolCall, onTurnComplete, onTurnStart, onTurnStep,
} from './mod'

/** Registers the mod's hooks; tools and commands are registered at session.start. */
export const register: Register = (on) => {
  on('session.start', onSessionStart)
  on('classic.SessionStart', onClassicStart)
  on('session.end', onSessionEnd)
  onTools(on)
  // Every tool, no matcher: the budget warning rides any main-agent result.
  on('tool.call', onToolCall)
  on('prompt.context', onPromptContext)
  on('prompt.submit', onPromptSubmit)
  on('turn.start', onTurnStart)
  on('turn.step', onTurnStep)
  on('turn.complete', onTurnComplete)
  on('session.compact', onCompact)
  on('session.append', onAppend)
  on('command.run', { command: 'notesoup' }, onCapCommand)
  on('command.run', { command: 'notesoup:empty' }, onStopCommand)
  on('command.run', { command: 'notesoup:fresh-window' }, onStopCommand)
  on('command.run', { command: 'notesoup:continue' }, onContinueCommand)
}

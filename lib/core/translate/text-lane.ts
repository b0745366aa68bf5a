/**
 * Assistant text and raw reasoning → TEXT_MESSAGE_* and REASONING_* (docs/protocol.md §4.5).
 *
 * One text message is open at a time outside pipelines: a new message id ends the previous one.
 * Starting text closes any open reasoning first. The full text of every message is kept so its
 * digest can be stored (tool start, message close, interrupt commit) for resume de-duplication.
 */
import type { AguiEvent, MakeEvent } from './events.js';
import { dropKnownPrefix, GrowingTextDigest } from './text-digests.js';

export class TextLane {
  private openMessageId: string | undefined;
  private reasoningId: string | undefined;
  /** The growing digest of each message's full text seen in this run (a de-duplicated prefix included). */
  private readonly fullText = new Map<string, GrowingTextDigest>();
  private readonly digests: Set<string>;
  /** The final answer being shown, when it counted (nothing streamed before it): its further pieces count too. */
  private countedFinalId: string | undefined;
  emittedText = false;

  constructor(
    private readonly make: MakeEvent,
    private readonly runId: string,
    private readonly newId: () => string,
    digests: readonly string[],
  ) {
    this.digests = new Set(digests);
  }

  get currentMessageId(): string | undefined {
    return this.openMessageId;
  }

  /** Continues a run whose events another producer emitted (docs/protocol.md §6.15 "Takeover"). */
  restore(open: { messageId: string | undefined; reasoningId: string | undefined; emittedText: boolean }): void {
    this.openMessageId = open.messageId;
    this.reasoningId = open.reasoningId;
    this.emittedText = open.emittedText;
  }

  text(messageId: string | undefined, text: string, isFinal: boolean): AguiEvent[] {
    // The final status repeats the whole answer; it only counts when nothing was streamed (docs/protocol.md §4.5).
    // A long one comes in several pieces under one id (docs/protocol.md §7.1): once it counts, each piece does.
    if (isFinal && this.emittedText && (messageId === undefined || messageId !== this.countedFinalId)) return [];
    const events = this.closeReasoning();
    const id = messageId ?? this.openMessageId ?? `assistant-${this.newId()}`;
    if (isFinal) this.countedFinalId = id;
    if (this.openMessageId !== undefined && this.openMessageId !== id) events.push(...this.closeText());
    const seen = this.fullText.get(id);
    const delta = seen === undefined ? dropKnownPrefix(text, this.digests) : text;
    const digest = seen ?? new GrowingTextDigest();
    digest.append(text);
    this.fullText.set(id, digest);
    if (delta.length === 0) return events;
    if (this.openMessageId === undefined) {
      events.push(this.make('TEXT_MESSAGE_START', { messageId: id, role: 'assistant' }));
      this.openMessageId = id;
    }
    events.push(this.make('TEXT_MESSAGE_CONTENT', { messageId: id, delta }));
    this.emittedText = true;
    return events;
  }

  reasoning(text: string): AguiEvent[] {
    const events: AguiEvent[] = [];
    if (this.reasoningId === undefined) {
      this.reasoningId = `reasoning-${this.openMessageId ?? this.runId}`;
      events.push(this.make('REASONING_START', { messageId: this.reasoningId }));
      events.push(this.make('REASONING_MESSAGE_START', { messageId: this.reasoningId, role: 'reasoning' }));
    }
    events.push(this.make('REASONING_MESSAGE_CONTENT', { messageId: this.reasoningId, delta: text }));
    return events;
  }

  closeReasoning(): AguiEvent[] {
    if (this.reasoningId === undefined) return [];
    const id = this.reasoningId;
    this.reasoningId = undefined;
    return [this.make('REASONING_MESSAGE_END', { messageId: id }), this.make('REASONING_END', { messageId: id })];
  }

  closeText(): AguiEvent[] {
    if (this.openMessageId === undefined) return [];
    const id = this.openMessageId;
    this.rememberCurrentText();
    this.openMessageId = undefined;
    return [this.make('TEXT_MESSAGE_END', { messageId: id })];
  }

  /** Stores the digest of the open message's text so far (tool start, interrupt commit). */
  rememberCurrentText(): void {
    if (this.openMessageId === undefined) return;
    const text = this.fullText.get(this.openMessageId);
    if (text && !text.empty) this.digests.add(text.digest());
  }

  digestList(): string[] {
    return [...this.digests];
  }
}

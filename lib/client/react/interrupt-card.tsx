/**
 * The interrupt renderer for CopilotKit's `useInterrupt` (react-core v2): the interrupt's message,
 * one button per option of its `responseSchema` (answer-options.ts), a text field where the schema
 * takes free text, and Cancel. While shown, it marks the tool call the interrupt names as waiting,
 * for the tool renderer (tool-card.tsx).
 *
 *   useInterrupt({ render: ({ interrupt, resolve, cancel }) =>
 *     interrupt ? <IacCodeInterruptCard interrupt={interrupt} resolve={resolve} cancel={cancel} /> : null });
 */
import { type FormEvent, useEffect, useState } from 'react';
import { answerForm } from './answer-options.js';
import { markWaiting } from './pending-tools.js';

/** The AG-UI interrupt as `useInterrupt` passes it (docs/protocol.md §5.2). */
export interface InterruptLike {
  id: string;
  reason?: string;
  message?: string;
  toolCallId?: string;
  responseSchema?: unknown;
  metadata?: Record<string, unknown>;
}

export interface IacCodeInterruptCardProps {
  // biome-ignore lint/suspicious/noExplicitAny: CopilotKit's interrupt type (its @ag-ui/core); read as InterruptLike.
  interrupt: InterruptLike | any;
  resolve: (payload: unknown) => unknown;
  cancel: () => unknown;
}

function TextAnswer({ field, label, minLength, resolve }: { field: string; label: string; minLength?: number; resolve: (payload: unknown) => unknown }) {
  const [text, setText] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (text.trim().length < (minLength ?? 1)) return;
    void resolve({ [field]: text });
  };
  return (
    <form className="interrupt-text" data-field={field} onSubmit={submit}>
      <input aria-label={label} placeholder={label} value={text} onChange={(event) => setText(event.target.value)} />
      <button type="submit" disabled={text.trim().length < (minLength ?? 1)}>
        Send
      </button>
    </form>
  );
}

export function IacCodeInterruptCard({ interrupt, resolve, cancel }: IacCodeInterruptCardProps) {
  const shown = interrupt as InterruptLike;
  const { options, textFields } = answerForm(shown.responseSchema, shown.metadata);
  const toolCallId = shown.toolCallId;
  useEffect(() => (toolCallId ? markWaiting(toolCallId) : undefined), [toolCallId]);
  return (
    <div className="interrupt-card" data-interrupt-id={shown.id} data-reason={shown.reason ?? ''}>
      <p className="interrupt-message">{shown.message}</p>
      <div className="interrupt-options">
        {options.map((option) => (
          <button key={option.label} type="button" onClick={() => void resolve(option.payload)}>
            {option.label}
          </button>
        ))}
        <button type="button" className="interrupt-cancel" onClick={() => void cancel()}>
          Cancel
        </button>
      </div>
      {textFields.map((field) => (
        <TextAnswer key={field.field} {...field} resolve={resolve} />
      ))}
    </div>
  );
}

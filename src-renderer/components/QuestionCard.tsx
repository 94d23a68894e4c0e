import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { QuestionData } from '../../src-main/contract/job.ts';
import { call } from '../api.ts';
import { useAction } from '../hooks.ts';
import { useConsole } from '../store.ts';
import { ErrorNote } from './ui.tsx';

/** The pending question: its options as buttons, or a free-text answer. */
export function QuestionCard(props: {
  org: string;
  endpoint: string;
  jobId: string;
  question: QuestionData;
  onAnswered: () => void;
}) {
  const [text, setText] = useState('');
  const action = useAction();
  const noteAnswerSent = useConsole((s) => s.noteAnswerSent);
  const card = useRef<HTMLElement>(null);
  // A new question takes focus (and so is read out) wherever the person was on the page.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs again for each new question, by its id
  useEffect(() => {
    card.current?.focus();
  }, [props.question.question_id]);
  const answer = (value: string) =>
    action.run(async () => {
      await call('answerJob', {
        params: { org_id: props.org, endpoint_name: props.endpoint },
        query: { job_id: props.jobId },
        body: { question_id: props.question.question_id, answer: value },
      });
      setText('');
      noteAnswerSent();
      props.onAnswered();
    });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (text.trim() !== '') void answer(text.trim());
  };
  return (
    <section className="question" aria-labelledby="question-title" tabIndex={-1} ref={card} data-testid="question-card">
      <p className="eyebrow" role="alert">
        The job is waiting for you<span className="sr-only">: {props.question.question}</span>
      </p>
      <h2 id="question-title">{props.question.question}</h2>
      {props.question.message !== '' && <p className="muted">{props.question.message}</p>}
      {props.question.options.length > 0 && (
        <div className="options">
          {props.question.options.map((option) => (
            <button
              key={option}
              type="button"
              className="option"
              disabled={action.busy}
              onClick={() => void answer(option)}
            >
              {option}
            </button>
          ))}
        </div>
      )}
      <form className="inline-form" onSubmit={submit}>
        <label className="grow">
          <span className="sr-only">Your answer</span>
          <input
            value={text}
            onChange={(e) => setText(e.target.value)}
            placeholder={props.question.options.length > 0 ? 'Or type another answer…' : 'Type your answer…'}
            aria-label="Your answer"
          />
        </label>
        <button type="submit" className="primary" disabled={action.busy || text.trim() === ''}>
          Send answer
        </button>
      </form>
      <ErrorNote detail={action.error} />
    </section>
  );
}

import type { InputHTMLAttributes, Ref } from "react";
import type { Notice } from "./notice.js";

/**
 * A labelled input that shows its own refusal: when the notice is about it, it is marked
 * `aria-invalid` and the reason is written beside it (and linked with `aria-describedby`), while
 * the page's alert announces the same words.
 */
export function Field(
  props: {
    id: string;
    label: string;
    notice: Notice;
    /** The label is read by screen readers only (a table cell under its column header). */
    hideLabel?: boolean;
    ref?: Ref<HTMLInputElement>;
  } & Omit<InputHTMLAttributes<HTMLInputElement>, "id">,
) {
  const { id, label, notice, hideLabel = false, ref, ...input } = props;
  const invalid = notice.field === id && notice.alert !== "";
  return (
    <div className={invalid ? "field invalid" : "field"}>
      <label htmlFor={id} className={hideLabel ? "visually-hidden" : undefined}>
        {label}
      </label>
      <input
        id={id}
        ref={ref}
        aria-invalid={invalid || undefined}
        aria-describedby={invalid ? `${id}-error` : undefined}
        {...input}
      />
      {invalid ? (
        <p id={`${id}-error`} className="field-error">
          {notice.alert}
        </p>
      ) : null}
    </div>
  );
}

/**
 * A modal dialog: labelled by its heading, focus moved into it on open, kept inside while it is
 * open (Tab and Shift+Tab cycle), Escape closes it when it may be closed, and focus goes back to
 * what had it before.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useId, useRef } from "preact/hooks";

const FOCUSABLE =
  'button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

export function Dialog(props: {
  readonly title: string;
  /** absent: the dialog waits for one of its own buttons (a question must be answered) */
  readonly onClose?: () => void;
  readonly children: ComponentChildren;
}) {
  const id = useId();
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    const first = box.current?.querySelector<HTMLElement>(`[autofocus], ${FOCUSABLE}`);
    first?.focus();
    return () => before?.focus?.();
  }, []);
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === "Escape" && props.onClose) {
      event.preventDefault();
      props.onClose();
      return;
    }
    if (event.key !== "Tab" || box.current === null) return;
    const items = [...box.current.querySelectorAll<HTMLElement>(FOCUSABLE)];
    if (items.length === 0) return;
    const first = items[0]!;
    const last = items[items.length - 1]!;
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  };
  return (
    <div class="backdrop">
      <div class="dialog" role="dialog" aria-modal="true" aria-labelledby={id} ref={box} onKeyDown={onKeyDown}>
        <h2 id={id}>{props.title}</h2>
        {props.children}
      </div>
    </div>
  );
}

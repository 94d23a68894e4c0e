// Runs in the page: the body's shown text as it is (pageText.ts folds and cuts it; an action's extract
// does its own).
export default function bodyText(): string {
  return document.body?.innerText ?? '';
}

// The page side of the confidence slider: two range inputs (an estimate on the question's
// min..max and a confidence in percent). collabrl imports this module and calls
// render(box, question); value() is sent as the answer (null until both sliders were moved).
export function render(box, question) {
  const config = question.config || {};
  const low = config.min ?? 0;
  const high = config.max ?? 100;
  const moved = { estimate: false, confidence: false };

  function slider(name, label, min, max) {
    const row = document.createElement("label");
    row.className = "option";
    const text = document.createElement("span");
    text.textContent = `${label}: `;
    const shown = document.createElement("output");
    const input = document.createElement("input");
    Object.assign(input, { type: "range", min: String(min), max: String(max), step: "1" });
    input.value = String(Math.round((min + max) / 2));
    input.dataset.testid = `q-${question.id}-${name}`;
    shown.textContent = "(move the slider)";
    input.addEventListener("input", () => { moved[name] = true; shown.textContent = input.value; });
    row.append(text, input, shown);
    box.appendChild(row);
    return input;
  }

  const estimate = slider("estimate", config.estimate_label || "Your estimate", low, high);
  const confidence = slider("confidence", "How sure you are (%)", 0, 100);
  return {
    value() {
      if (!moved.estimate || !moved.confidence) return null;
      return { estimate: Number(estimate.value), confidence: Number(confidence.value) };
    },
  };
}

// Section 2's softmax temperature slider: every weight was computed at build time and sits on the element;
// this only shows the row for the chosen scale.
document.querySelectorAll("[data-temperature]").forEach((figure) => {
  const { scales, weights } = JSON.parse(figure.dataset.temperature);
  const input = figure.querySelector(".temperature__input");
  const output = figure.querySelector(".temperature__scale");
  const bars = figure.querySelectorAll(".temperature__bar");
  const values = figure.querySelectorAll(".temperature__value");
  input.addEventListener("input", () => {
    const row = weights[Number(input.value)];
    output.textContent = String(scales[Number(input.value)]);
    input.setAttribute("aria-valuetext", output.textContent);
    row.forEach((w, i) => {
      bars[i].style.width = `${(100 * w).toFixed(1)}%`;
      values[i].textContent = w.toFixed(2);
    });
  });
});

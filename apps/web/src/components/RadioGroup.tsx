/** One radio button of a RadioGroup. */
export interface RadioOption<V extends string | number> {
  value: V;
  label: string;
  disabled?: boolean;
}

interface RadioGroupProps<V extends string | number> {
  legend: string;
  /** The inputs' name, shared by the group. */
  name: string;
  options: readonly RadioOption<V>[];
  /** The checked option's value, if any. */
  value: V | null | undefined;
  onChange: (value: V) => void;
  /** The fieldset's class, and each option's label's. */
  className?: string;
  optionClassName?: string;
}

/** A fieldset of radio buttons under its legend, each input inside its own label. */
export function RadioGroup<V extends string | number>({
  legend,
  name,
  options,
  value,
  onChange,
  className,
  optionClassName,
}: RadioGroupProps<V>) {
  return (
    <fieldset className={className}>
      <legend>{legend}</legend>
      {options.map((option) => (
        <label key={option.value} className={optionClassName}>
          <input
            type="radio"
            name={name}
            value={option.value}
            checked={value === option.value}
            disabled={option.disabled}
            onChange={() => onChange(option.value)}
          />
          <span>{option.label}</span>
        </label>
      ))}
    </fieldset>
  );
}

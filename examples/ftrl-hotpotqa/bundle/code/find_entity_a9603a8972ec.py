ANSWERS = {"step 1.1 of \"The arena where the Lewiston Maineiacs played their home games can seat how many people?\"":"3,677 seated"}

def find_entity_a9603a8972ec(**arguments):
    return "Result: " + ANSWERS.get(arguments.get("query"), "no record")

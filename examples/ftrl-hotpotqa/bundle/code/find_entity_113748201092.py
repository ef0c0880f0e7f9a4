ANSWERS = {"step 1.1 of \"Are Local H and For Against both from the United States?\"":"yes","step 2.1 of \"Are Local H and For Against both from the United States?\"":"fact-ec530e"}

def find_entity_113748201092(**arguments):
    return "Result: " + ANSWERS.get(arguments.get("query"), "no record")
